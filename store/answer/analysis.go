package answer

import "github.com/hubsnap/hubsnap/indexer/snapshot"

// The logic analysis (SPEC §11) in the answers: what a logic's SQL means
// against its release, found once when the release was indexed. The store
// composes these shapes by SQL (store/analysis_json.go).

// LogicAnalysis is logic_get's "analysis": snapshot.Analysis as the tools
// show it. Each list holds what fits in its share of the answer, in order;
// "<list>Total" counts them all when it holds fewer.
type LogicAnalysis struct {
	Statement   string                 `json:"statement" jsonschema:"select, insert, update, delete, merge or other"`
	Tables      []snapshot.TableAccess `json:"tables" jsonschema:"every table the SQL touches"`
	TablesTotal int                    `json:"tablesTotal,omitempty"`
	// Result is null when the statement returns no rows (no RETURNING),
	// or, with unjudged set, when the shape of a row is not known.
	Result        []snapshot.ResultColumn `json:"result" jsonschema:"the columns of one row of the answer, in order; null when it returns no rows"`
	ResultTotal   int                     `json:"resultTotal,omitempty"`
	Bindings      []snapshot.Binding      `json:"bindings" jsonschema:"the column each placeholder is compared with or assigned to: what value to pass"`
	BindingsTotal int                     `json:"bindingsTotal,omitempty"`
	Problems      []snapshot.Problem      `json:"problems" jsonschema:"what is certainly wrong against this release; empty when nothing is"`
	ProblemsTotal int                     `json:"problemsTotal,omitempty"`
	// Unjudged says why (part of) the SQL was not judged; then problems
	// there may be missed, and a null result is not known.
	Unjudged string `json:"unjudged,omitempty" jsonschema:"why some of the SQL was not analysed: problems there may be missed, and a null result means unknown"`
}

// TableUse is a logic that touches a table (schema_get_table's usedBy).
type TableUse struct {
	Logic  string `json:"logic"`
	Access string `json:"access" jsonschema:"read, write or read_write"`
}

// BrokenLogic is a logic of the newer release that has problems it did
// not have in the older one, or is new with problems (schema_diff's
// logics.broken).
type BrokenLogic struct {
	Name          string             `json:"name"`
	Problems      []snapshot.Problem `json:"problems" jsonschema:"its new problems: those whose code and message the older release's logic did not have"`
	ProblemsTotal int                `json:"problemsTotal,omitempty"`
}
