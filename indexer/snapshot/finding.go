package snapshot

// The codes of the schema rules of `hubsnap snapshot check` and
// release_check (SPEC §12). The rules themselves, and their registry with
// the codes of the logic analysis, are package indexer/lint's; store
// writes and reads their findings.
const (
	CodeNoPrimaryKey        = "NO_PRIMARY_KEY"
	CodeFKWithoutIndex      = "FK_WITHOUT_INDEX"
	CodeFKTypeMismatch      = "FK_TYPE_MISMATCH"
	CodeDuplicateForeignKey = "DUPLICATE_FOREIGN_KEY"
	// CodeMissingComment is read from the index's tables and columns when
	// asked for, never written as a finding.
	CodeMissingComment = "MISSING_COMMENT"
)

// Finding is what a schema rule found about a table of a release: a row
// of the index's schema_findings (docs/index.md), as indexer/lint makes it
// and store writes it.
type Finding struct {
	// Table is the table's place among the release's tables, from 0.
	Table int
	// Code is the rule's: CodeNoPrimaryKey, ...
	Code string
	// Item is the foreign key's position in the table; 0 for the table.
	Item int
	// Part is the key column's place in the key; 0 when not about one.
	Part int
	// Column is the column it is about; "" for the table, or for a key of
	// several columns.
	Column string
	// Message says what is wrong, in at most 2 KiB.
	Message string
}
