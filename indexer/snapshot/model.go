package snapshot

// Release names one release of a project, as the Hub published it.
type Release struct {
	ID          string
	Project     string
	Environment string
	Version     int64
	CreatedAt   string // as the Hub wrote it, normally RFC 3339
}

// Origin records where a cached release came from. It lives in the release
// file beside the snapshot so the index can be rebuilt without the Hub.
type Origin struct {
	// Source is SourceHub or SourceImport.
	Source string
	// Digest is "sha256:<hex>" of the document as received, before
	// sanitizing: the value the Hub lists, used to skip unchanged releases.
	Digest string
	// SyncedAt is when the release entered the cache, RFC 3339 in UTC.
	SyncedAt string
}

// Sources of a cached release.
const (
	SourceHub    = "hub"
	SourceImport = "import"
)

// Snapshot is a whole release: its schema and its logics. It holds only what
// hubsnap keeps; secrets never reach this type.
type Snapshot struct {
	Release     Release
	Origin      Origin
	Connections []Connection
	Tables      []Table
	Logics      []Logic
}

// Connection is a database the release's tables live in. Its URL is never kept.
type Connection struct {
	Name   string
	Engine string
}

// DefaultConnection is the connection of a table that names none.
const DefaultConnection = "main"

// Table is one table with its columns and keys.
type Table struct {
	Name       string
	Connection string
	Comment    string
	Columns    []Column
	// PrimaryKey lists the key's columns in key order; empty when the table
	// has no primary key.
	PrimaryKey  []string
	ForeignKeys []ForeignKey
	Indexes     []Index
}

// Column is one column of a table.
type Column struct {
	Name     string
	Type     string
	Nullable bool
	Comment  string
	Default  string // the default expression as written, "" for none
	Enum     []string
}

// ForeignKey is a foreign key of a table. The referenced table need not be in
// the release.
type ForeignKey struct {
	Name          string
	Columns       []string
	RefConnection string
	RefTable      string
	RefColumns    []string // same length as Columns
	OnDelete      string
}

// Index is a secondary index of a table.
type Index struct {
	Name    string
	Columns []string
	Unique  bool
}

// Logic is a named server-side SQL operation. Its secrets are never kept.
type Logic struct {
	Name        string
	Description string
	SQL         string
	Params      []Param
	Auth        Auth
}

// Param is a parameter of a logic.
type Param struct {
	Name     string
	Type     string
	Required bool
}

// Auth is who may call a logic.
type Auth struct {
	Required bool
	Roles    []string
}
