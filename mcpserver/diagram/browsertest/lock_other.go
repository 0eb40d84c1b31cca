//go:build !unix

package browsertest

// lock does nothing where there is no flock: the tests run on Linux.
func lock(string) (func(), error) { return func() {}, nil }
