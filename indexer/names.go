package indexer

import (
	"fmt"
	"regexp"

	"github.com/hubsnap/hubsnap/store"
)

// namePattern is what a project name, environment or release id must look
// like: they become file names in the cache, so nothing else is allowed in.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// NamePattern is namePattern as text, for messages and docs.
const NamePattern = `[A-Za-z0-9][A-Za-z0-9._-]{0,127}`

// ValidName reports whether s may be used as a project name, environment
// or release id.
func ValidName(s string) bool { return namePattern.MatchString(s) }

// CheckName returns an InvalidArgument error naming what when s is not a
// valid name. The value is quoted, so hostile bytes cannot reach a terminal.
func CheckName(what, s string) error {
	if ValidName(s) {
		return nil
	}
	if s == "" {
		return store.Errorf(store.InvalidArgument, "%s is empty", what)
	}
	return store.Errorf(store.InvalidArgument, "%s %s is not valid: it must match %s", what, quote(s), NamePattern)
}

// checkLogicName explains why name is not a valid logic name, or returns "".
func checkLogicName(name string) string { return store.LogicNameProblem(name) }

// quote quotes s for a message, shortening very long values.
func quote(s string) string {
	const max = 80
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}
