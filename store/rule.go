package store

import (
	"slices"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// The rules of `hubsnap snapshot check` and release_check (SPEC §11,
// §12): their codes, which run by default, and the check of a code given.
// lint_rules.go holds the schema rules themselves, lint.go the pages of
// their findings.

// Check codes of the schema rules.
const (
	CodeNoPrimaryKey        = "NO_PRIMARY_KEY"
	CodeFKWithoutIndex      = "FK_WITHOUT_INDEX"
	CodeFKTypeMismatch      = "FK_TYPE_MISMATCH"
	CodeDuplicateForeignKey = "DUPLICATE_FOREIGN_KEY"
	CodeMissingComment      = "MISSING_COMMENT"
)

// Rule is one check of `hubsnap snapshot check` and release_check.
type Rule struct {
	Code string
	// Logic marks a problem of a logic found by the logic analysis (SPEC
	// §11); the others are schema rules.
	Logic bool
	// OptIn marks a rule that runs only when asked for by its code (or
	// `--all`): MISSING_COMMENT, whose findings are many on most schemas.
	OptIn bool
}

// Rules are every rule, in the order their findings are listed.
var Rules = []Rule{
	{Code: CodeNoPrimaryKey},
	{Code: CodeFKWithoutIndex},
	{Code: CodeFKTypeMismatch},
	{Code: CodeDuplicateForeignKey},
	{Code: CodeMissingComment, OptIn: true},
	{Code: snapshot.CodeSyntax, Logic: true},
	{Code: snapshot.CodeUnknownTable, Logic: true},
	{Code: snapshot.CodeUnknownColumn, Logic: true},
	{Code: snapshot.CodeAmbiguousTable, Logic: true},
	{Code: snapshot.CodeAmbiguousColumn, Logic: true},
	{Code: snapshot.CodeUndeclaredParam, Logic: true},
	{Code: snapshot.CodeUnusedParam, Logic: true},
	{Code: snapshot.CodeParamType, Logic: true},
	{Code: snapshot.CodeMissingColumn, Logic: true},
}

// RuleCodes returns the codes of Rules, in order.
func RuleCodes() []string {
	out := make([]string, len(Rules))
	for i, r := range Rules {
		out[i] = r.Code
	}
	return out
}

// DefaultRules returns the codes a check runs when none is asked for:
// every rule that is not opt-in.
func DefaultRules() []string {
	var out []string
	for _, r := range Rules {
		if !r.OptIn {
			out = append(out, r.Code)
		}
	}
	return out
}

// CheckRules checks that every code names a rule: InvalidArgument,
// listing the rules, when one does not.
func CheckRules(codes []string) error {
	all := RuleCodes()
	for _, c := range codes {
		if !slices.Contains(all, c) {
			return Errorf(InvalidArgument, "unknown rule %q; the rules are %s", c, strings.Join(all, ", "))
		}
	}
	return nil
}
