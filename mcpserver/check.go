package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/mcpserver/access"
	"github.com/hubsnap/hubsnap/store"
)

// CheckInput is the input of release_check.
type CheckInput struct {
	Code   RuleCode `json:"code,omitempty" jsonschema:"the one rule to run; default: all but MISSING_COMMENT"`
	Cursor Cursor   `json:"cursor,omitempty" jsonschema:"the nextCursor of the page before"`
}

// CheckOutput is the output of release_check, and what `hubsnap snapshot
// check --json` prints (whole, without nextCursor).
type CheckOutput struct {
	Release  string    `json:"release" jsonschema:"the id of the release checked"`
	Findings []Finding `json:"findings" jsonschema:"a page of findings, by rule, then by table in the snapshot's order; empty when there are none"`
	// CommentCoverage is set when MISSING_COMMENT runs.
	CommentCoverage *float64 `json:"commentCoverage,omitempty" jsonschema:"with MISSING_COMMENT: the per cent of tables and columns together that have a comment"`
	Total           int      `json:"total" jsonschema:"how many findings there are in all"`
	NextCursor      string   `json:"nextCursor,omitempty" jsonschema:"more findings follow: pass this as cursor for the next page"`
	// AnalysisPending is set while the release's logics are being
	// analysed: their problems are not among the findings yet.
	AnalysisPending bool `json:"analysisPending,omitempty" jsonschema:"the logics are still being analysed: their problems are not listed yet"`
}

// Finding is a problem a rule found: in a table (or one of its columns),
// or in a logic.
type Finding struct {
	Code     string `json:"code" jsonschema:"the rule, e.g. FK_WITHOUT_INDEX"`
	Message  string `json:"message" jsonschema:"what is wrong"`
	Logic    string `json:"logic,omitempty" jsonschema:"the logic, for a problem of a logic's SQL"`
	Position int    `json:"position,omitempty" jsonschema:"where in the logic's SQL, a 1-based character offset, when known"`
	Table    string `json:"table,omitempty" jsonschema:"the table, for a problem of the schema"`
	// Connection is the table's; a finding of a table always names it.
	Connection string `json:"connection,omitempty" jsonschema:"the table's database connection"`
	Column     string `json:"column,omitempty" jsonschema:"the column, when the problem is one column's"`
}

func (s *Server) addCheckTool() {
	addTool[CheckInput, CheckOutput](s, &mcp.Tool{
		Name: "release_check",
		Description: `Lint the current release as a team's CI would (hubsnap snapshot check): tables without a
primary key; foreign keys without an index, of another type than the column they reference,
or duplicated; then each logic's problems. "code" runs one rule; MISSING_COMMENT only so.`,
		Annotations: readOnly("Check the schema"),
	}, []access.Scope{access.ReleaseRead}, s.check)
}

func (s *Server) check(ctx context.Context, _ *mcp.CallToolRequest, in CheckInput) ([]byte, error) {
	codes := lint.DefaultRules()
	if in.Code != "" {
		codes = []string{string(in.Code)}
		if err := lint.CheckRules(codes); err != nil {
			return nil, store.Errorf(store.InvalidArgument, "%v", err)
		}
	}
	return s.store.CheckJSON(ctx, s.target, store.CheckRequest{Codes: codes,
		PageRequest: store.PageRequest{Cursor: string(in.Cursor)}})
}
