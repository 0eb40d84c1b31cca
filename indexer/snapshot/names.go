package snapshot

import (
	"fmt"
	"regexp"
	"strings"
)

// namePattern is what a project name, environment or release id must look
// like: they become file names in the cache, so nothing else is allowed in.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// NamePattern is namePattern as text, for messages and docs.
const NamePattern = `[A-Za-z0-9][A-Za-z0-9._-]{0,127}`

// ValidName reports whether s may be used as a project name, environment
// or release id.
func ValidName(s string) bool { return namePattern.MatchString(s) }

// logicSegment is one /-separated segment of a logic name.
var logicSegment = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// LogicNameProblem explains why name is not a valid logic name, or returns
// "" when it is one. A logic name is /-separated segments of [A-Za-z0-9_.-];
// no segment may be empty, "." or "..", so the name cannot start or end
// with "/".
func LogicNameProblem(name string) string {
	if name == "" {
		return "empty"
	}
	for seg := range strings.SplitSeq(name, "/") {
		switch {
		case seg == "":
			return fmt.Sprintf("%s has an empty segment (no leading, trailing or double /)", quote(name))
		case seg == "." || seg == "..":
			return fmt.Sprintf("%s has a %q segment", quote(name), seg)
		case !logicSegment.MatchString(seg):
			return fmt.Sprintf("%s: segments may hold only A-Z a-z 0-9 _ . -", quote(name))
		}
	}
	return ""
}

// quote quotes s for a message, shortening very long values.
func quote(s string) string {
	const max = 80
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}
