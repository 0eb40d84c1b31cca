package store

import (
	"fmt"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// LogicNameProblem explains why name is not a valid logic name, or returns
// "" when it is one: snapshot.LogicNameProblem, the rule of the release
// model, named here for the tools that check a logic name argument.
func LogicNameProblem(name string) string { return snapshot.LogicNameProblem(name) }

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
