package answer

// The logic analysis (SPEC §11) in the answers: what a logic's SQL means
// against its release, found once when the release was indexed. The store
// composes these shapes by SQL (store/analysis_json.go).

// LogicAnalysis is logic_get's "analysis". Each list holds what fits in
// its share of the answer, in order; "<list>Total" counts them all when it
// holds fewer.
type LogicAnalysis struct {
	Statement   string        `json:"statement" jsonschema:"select, insert, update, delete, merge or other"`
	Tables      []TableAccess `json:"tables" jsonschema:"every table the SQL touches"`
	TablesTotal int           `json:"tablesTotal,omitempty"`
	// Result is null when the statement returns no rows (no RETURNING),
	// or, with unjudged set, when the shape of a row is not known.
	Result        []ResultColumn `json:"result" jsonschema:"the columns of one row of the answer, in order; null when it returns no rows"`
	ResultTotal   int            `json:"resultTotal,omitempty"`
	Bindings      []Binding      `json:"bindings" jsonschema:"the column each placeholder is compared with or assigned to: what value to pass"`
	BindingsTotal int            `json:"bindingsTotal,omitempty"`
	Problems      []Problem      `json:"problems" jsonschema:"what is certainly wrong against this release; empty when nothing is"`
	ProblemsTotal int            `json:"problemsTotal,omitempty"`
	// Unjudged says why (part of) the SQL was not judged; then problems
	// there may be missed, and a null result is not known.
	Unjudged string `json:"unjudged,omitempty" jsonschema:"why some of the SQL was not analysed: problems there may be missed, and a null result means unknown"`
}

// TableAccess is a table a logic touches.
type TableAccess struct {
	Table      string `json:"table"`
	Connection string `json:"connection"`
	Access     string `json:"access" jsonschema:"read, write or read_write"`
}

// ResultColumn is a column of a row of a logic's answer.
type ResultColumn struct {
	Name     string        `json:"name" jsonschema:"the name PostgreSQL gives it"`
	Type     string        `json:"type" jsonschema:"the column's type as the snapshot states it, else the PostgreSQL type, or unknown"`
	Nullable bool          `json:"nullable" jsonschema:"false only when it can never be null"`
	Source   *ColumnSource `json:"source,omitempty" jsonschema:"the table column it is, when it is one"`
}

// ColumnSource names a table column.
type ColumnSource struct {
	Table  string `json:"table"`
	Column string `json:"column"`
}

// Binding is a placeholder compared with or assigned to a column.
type Binding struct {
	Param  string `json:"param"`
	Table  string `json:"table"`
	Column string `json:"column"`
}

// Problem is a certain defect of a logic against its release.
type Problem struct {
	Code     string `json:"code" jsonschema:"e.g. UNKNOWN_COLUMN, SYNTAX, UNDECLARED_PARAM"`
	Message  string `json:"message"`
	Position int    `json:"position,omitempty" jsonschema:"a 1-based character offset in sql, when known"`
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
	Name          string    `json:"name"`
	Problems      []Problem `json:"problems" jsonschema:"its new problems: those whose code and message the older release's logic did not have"`
	ProblemsTotal int       `json:"problemsTotal,omitempty"`
}
