package access

import (
	"fmt"
	"slices"
	"strings"
)

// Scope is what a token may read.
type Scope string

// The scopes hubsnap checks.
const (
	// TableRead covers the schema tools, schema_search and the table
	// resources.
	TableRead Scope = "table:read"
	// LogicRead covers the logic tools and resources (and logic hits of
	// schema_search).
	LogicRead Scope = "logic:read"
	// ReleaseRead covers release_info, release_check and the release
	// resource.
	ReleaseRead Scope = "release:read"
)

// Scopes are the scopes hubsnap checks, in the order it lists them.
var Scopes = []Scope{TableRead, LogicRead, ReleaseRead}

// ParseScopes checks a list of scope patterns as a user typed them (each
// may hold several, comma-separated) and returns them trimmed, without
// duplicates, in the order given. A pattern is a scope, or one with a
// wildcard: table:*, *:read, *. A pattern that grants nothing hubsnap
// checks, such as table:write, is an error: it is most likely a typo.
func ParseScopes(list []string) ([]string, error) {
	var out []string
	for _, item := range list {
		for p := range strings.SplitSeq(item, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if !valid(p) {
				return nil, fmt.Errorf("unknown scope %q: use %s, or a wildcard such as table:*, *:read or *", p, known())
			}
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no scopes: name at least one of %s, or *", known())
	}
	return out, nil
}

// valid reports whether pattern is well formed and grants at least one
// scope.
func valid(pattern string) bool {
	if pattern == "*" {
		return true
	}
	resource, action, ok := strings.Cut(pattern, ":")
	if !ok || resource == "" || action == "" || strings.Contains(action, ":") {
		return false
	}
	for _, s := range Scopes {
		if matches(pattern, s) {
			return true
		}
	}
	return false
}

func known() string {
	names := make([]string, len(Scopes))
	for i, s := range Scopes {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// Allows reports whether the granted patterns include need.
func Allows(granted []string, need Scope) bool {
	for _, g := range granted {
		if matches(g, need) {
			return true
		}
	}
	return false
}

// matches reports whether one pattern grants need: "*" grants everything;
// otherwise resource and action each match exactly or by "*".
func matches(pattern string, need Scope) bool {
	if pattern == "*" || pattern == string(need) {
		return true
	}
	pr, pa, ok := strings.Cut(pattern, ":")
	if !ok {
		return false
	}
	nr, na, _ := strings.Cut(string(need), ":")
	return (pr == "*" || pr == nr) && (pa == "*" || pa == na)
}
