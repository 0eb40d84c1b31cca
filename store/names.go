package store

import (
	"fmt"
	"regexp"
	"strings"
)

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
			return fmt.Sprintf("%s has an empty segment (no leading, trailing or double /)", short(name))
		case seg == "." || seg == "..":
			return fmt.Sprintf("%s has a %q segment", short(name), seg)
		case !logicSegment.MatchString(seg):
			return fmt.Sprintf("%s: segments may hold only A-Z a-z 0-9 _ . -", short(name))
		}
	}
	return ""
}

// short quotes s for a message, cutting very long values.
func short(s string) string {
	const max = 80
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}
