// Package lint holds the rules of `hubsnap snapshot check` and
// release_check (SPEC §11, §12): the schema rules as small named functions
// over the release model (indexer/snapshot), and the registry of every
// rule, its code, what it finds and whether it runs by default. It is a
// leaf: it imports indexer/snapshot only, and reaches no SQLite.
//
// The schema rules run when a release is indexed. Package indexer hands
// each table to a Linter as it goes by, beside the writes, and store
// writes the findings it gets as rows of schema_findings. FK_TYPE_MISMATCH
// needs the types of the referenced columns, which may be in tables given
// later: once every table is written, Linter.KeyFindings reads them back
// from the index and judges. MISSING_COMMENT is a query of the index,
// store's, run when asked for; the codes of the logic analysis are rules
// too, their findings the analysis's problems. Release runs the same
// rules on a release held whole.
package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// Rule is one check of `hubsnap snapshot check` and release_check.
type Rule struct {
	Code string
	// Reason says what the rule finds, in a line.
	Reason string
	// Logic marks a problem of a logic found by the logic analysis (SPEC
	// §11); the others are schema rules.
	Logic bool
	// OptIn marks a rule that runs only when asked for by its code (or
	// `--all`): MISSING_COMMENT, whose findings are many on most schemas.
	OptIn bool

	// table judges a table by itself; nil for the other rules.
	table func(t *snapshot.Table) []snapshot.Finding
}

// Rules are every rule, in the order their findings are listed.
var Rules = []Rule{
	{Code: snapshot.CodeNoPrimaryKey, Reason: "a table without a primary key", table: noPrimaryKey},
	{Code: snapshot.CodeFKWithoutIndex, Reason: "a foreign key whose columns do not lead the primary key or an index",
		table: foreignKeysWithoutIndex},
	{Code: snapshot.CodeFKTypeMismatch, Reason: "a foreign-key column of another type than the column it references"},
	{Code: snapshot.CodeDuplicateForeignKey, Reason: "a foreign key with the same columns and target as an earlier one",
		table: duplicateForeignKeys},
	{Code: snapshot.CodeMissingComment, Reason: "a table or column without a comment", OptIn: true},
	{Code: snapshot.CodeSyntax, Reason: "a logic's SQL that PostgreSQL does not parse", Logic: true},
	{Code: snapshot.CodeUnknownTable, Reason: "a logic names a table the release lacks", Logic: true},
	{Code: snapshot.CodeUnknownColumn, Reason: "a logic names a column its tables lack", Logic: true},
	{Code: snapshot.CodeAmbiguousTable, Reason: "a logic names a table several connections hold", Logic: true},
	{Code: snapshot.CodeAmbiguousColumn, Reason: "a logic names a column several of its tables hold", Logic: true},
	{Code: snapshot.CodeUndeclaredParam, Reason: "a placeholder with no declared param", Logic: true},
	{Code: snapshot.CodeUnusedParam, Reason: "a declared param the SQL never uses", Logic: true},
	{Code: snapshot.CodeParamType, Reason: "a declared type of another kind than the column it is bound to", Logic: true},
	{Code: snapshot.CodeMissingColumn, Reason: "an INSERT that leaves out a NOT NULL column with no default", Logic: true},
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

// CheckRules checks that every code names a rule; its error, when one
// does not, names it and lists the rules. The edges give it their own
// form (INVALID_ARGUMENT, a usage error).
func CheckRules(codes []string) error {
	all := RuleCodes()
	for _, c := range codes {
		if !slices.Contains(all, c) {
			return fmt.Errorf("unknown rule %q; the rules are %s", c, strings.Join(all, ", "))
		}
	}
	return nil
}

// tableRules are the rules that judge a table by itself, in rule order.
var tableRules = func() []func(*snapshot.Table) []snapshot.Finding {
	var out []func(*snapshot.Table) []snapshot.Finding
	for _, r := range Rules {
		if r.table != nil {
			out = append(out, r.table)
		}
	}
	return out
}()
