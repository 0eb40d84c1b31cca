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

// maxListed bounds the names a message lists: names may take 1 KiB each,
// and a name can be in up to 4,096 connections.
const maxListed = 4 << 10

// nameList joins names for a message, "a, b, c", as many as fit in 4 KiB
// (always one), then " and N more" for the rest of total.
func nameList(names []string, total int) string {
	var b strings.Builder
	shown := 0
	for _, n := range names {
		if shown > 0 && b.Len()+2+len(n) > maxListed {
			break
		}
		if shown > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n)
		shown++
	}
	if total > shown {
		fmt.Fprintf(&b, " and %d more", total-shown)
	}
	return b.String()
}
