//go:build !race

package store_test

// raceOn is set when the tests run with the race detector (see
// race_ext_test.go).
const raceOn = false
