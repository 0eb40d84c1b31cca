package snapshot

// The analysis result of a logic (SPEC §11): what its SQL means against
// its release, found by package analysis when the release is indexed,
// kept by package store and shown by the tools and the CLI. The json tags
// are §11's "analysis" object; the jsonschema tags describe its fields in
// the tools' output schemas (logic_get's analysis, schema_diff's broken
// logics), which are inferred from these types.

// Analysis is what the analysis found for one logic: exactly SPEC §11's
// "analysis" object, plus whether the logic was judged.
type Analysis struct {
	Statement string         `json:"statement"` // one of the Statement kinds
	Tables    []TableAccess  `json:"tables"`
	Result    []ResultColumn `json:"result"` // nil: the statement returns no rows
	Bindings  []Binding      `json:"bindings"`
	Problems  []Problem      `json:"problems"`
	// Unjudged says why the logic, or a part of it, was not judged ("" when
	// it was judged whole). Problems listed are certain either way; when
	// Unjudged is set, others may have been missed, and Result is nil when
	// the shape of a row could not be known.
	Unjudged string `json:"-"`
}

// TableAccess is a table a logic's statement touches.
type TableAccess struct {
	Table      string `json:"table"`
	Connection string `json:"connection"`
	Access     string `json:"access" jsonschema:"read, write or read_write"` // one of the Access values
}

// ResultColumn is a column of a row of a logic's answer.
type ResultColumn struct {
	Name     string        `json:"name" jsonschema:"the name PostgreSQL gives it"`
	Type     string        `json:"type" jsonschema:"the column's type as the snapshot states it, else the PostgreSQL type, or unknown"`
	Nullable bool          `json:"nullable" jsonschema:"false only when it can never be null"`
	Source   *ColumnSource `json:"source,omitempty" jsonschema:"the table column it is, when it is one"`
}

// ColumnSource names the table column a result column is.
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
	Code     string `json:"code" jsonschema:"e.g. UNKNOWN_COLUMN, SYNTAX, UNDECLARED_PARAM"` // one of the problem codes
	Message  string `json:"message"`
	Position int    `json:"position,omitempty" jsonschema:"a 1-based character offset in sql, when known"`
}

// Problem codes (SPEC §11).
const (
	CodeSyntax          = "SYNTAX"
	CodeUnknownTable    = "UNKNOWN_TABLE"
	CodeUnknownColumn   = "UNKNOWN_COLUMN"
	CodeAmbiguousTable  = "AMBIGUOUS_TABLE"
	CodeAmbiguousColumn = "AMBIGUOUS_COLUMN"
	CodeUndeclaredParam = "UNDECLARED_PARAM"
	CodeUnusedParam     = "UNUSED_PARAM"
	CodeParamType       = "PARAM_TYPE"
	CodeMissingColumn   = "MISSING_COLUMN"
)

// Statement kinds (Analysis.Statement).
const (
	StatementSelect = "select"
	StatementInsert = "insert"
	StatementUpdate = "update"
	StatementDelete = "delete"
	StatementMerge  = "merge"
	StatementOther  = "other"
)

// Access values (TableAccess.Access).
const (
	AccessRead      = "read"
	AccessWrite     = "write"
	AccessReadWrite = "read_write"
)
