package indexer

import (
	"fmt"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// CheckName returns an InvalidArgument error naming what when s is not a
// valid project name, environment or release id (snapshot.ValidName). The
// value is quoted, so hostile bytes cannot reach a terminal.
func CheckName(what, s string) error {
	if snapshot.ValidName(s) {
		return nil
	}
	if s == "" {
		return store.Errorf(store.InvalidArgument, "%s is empty", what)
	}
	return store.Errorf(store.InvalidArgument, "%s %s is not valid: it must match %s", what, quote(s), snapshot.NamePattern)
}

// quote quotes s for a message, shortening very long values.
func quote(s string) string {
	const max = 80
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}

// NamePattern is snapshot.NamePattern, for the Hub client's messages.
const NamePattern = snapshot.NamePattern

// ValidName is snapshot.ValidName, for the Hub client.
func ValidName(s string) bool { return snapshot.ValidName(s) }
