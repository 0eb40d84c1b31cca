package main

import (
	"errors"

	"github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/store"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// exitStatuses is the one table from an error code to how hubsnap exits
// (docs/cli.md, "Exit status"). Only INVALID_ARGUMENT is a usage error: a
// request that can never succeed as made. That is what cobra's flag and
// argument errors, missing settings (usageErrorf) and the checks of names
// given on the command line (indexer.CheckName) return. Every other code
// is a fact about the cache, the Hub or the machine.
var exitStatuses = map[store.Code]int{
	store.InvalidArgument:  exitUsage,
	store.WrongEnvironment: exitError, // the release is cached for another environment
	store.NotFound:         exitError,
	store.NoRelease:        exitError,
	store.Ambiguous:        exitError,
	store.Forbidden:        exitError,
	store.Internal:         exitError, // files, the network, anything without a code
}

// hubExitStatuses is the same for the Hub client's own errors: a Hub URL
// that is not one (hub.New) is a usage error, as INVALID_ARGUMENT is; a
// project or release the Hub does not have is a fact, as NOT_FOUND is.
var hubExitStatuses = map[hub.Kind]int{
	hub.Invalid:  exitUsage,
	hub.NotFound: exitError,
}

// exitCode is the one place that decides how hubsnap exits after err: 0
// without an error, exitError for an error a run function marked as the
// command's answer (see failure), else the status of err's code, or of
// its kind for an error of the Hub client.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if _, ok := errors.AsType[*failure](err); ok {
		return exitError
	}
	if _, ok := errors.AsType[*store.Error](err); !ok {
		if e, ok := errors.AsType[*hub.Error](err); ok {
			if status, ok := hubExitStatuses[e.Kind]; ok {
				return status
			}
			return exitError
		}
	}
	if status, ok := exitStatuses[store.ErrorCode(err)]; ok {
		return status
	}
	return exitError
}

// usageErrorf returns a usage error (exit 2): a mistake in how hubsnap was
// called that hubsnap itself finds, such as a missing setting or two flags
// that exclude each other.
func usageErrorf(format string, args ...any) error {
	return store.Errorf(store.InvalidArgument, format, args...)
}

// failure is an error that exits 1 whatever its code: the command ran and
// its answer is a failure, such as the findings of snapshot check. The
// message and the chain stay as they are.
type failure struct{ err error }

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }
