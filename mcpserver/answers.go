package mcpserver

import "github.com/hubsnap/hubsnap/store/answer"

// The answer types that store builds or composes live in package
// store/answer, the one place their shape is written; these names keep
// them where the tools' other types are.
type (
	// Table is the output of schema_get_table.
	Table = answer.Table
	// TableRef names a table.
	TableRef = answer.TableRef
	// Key is a primary key.
	Key = answer.Key
	// KeyColumn is a column of a primary key.
	KeyColumn = answer.KeyColumn
	// Column is a column of a table.
	Column = answer.Column
	// ForeignKey is a foreign key of a table.
	ForeignKey = answer.ForeignKey
	// References is the target of a foreign key.
	References = answer.References
	// Index is a secondary index.
	Index = answer.Index
	// Reference is a foreign key of another table that points at a table.
	Reference = answer.Reference
	// Logic is the output of logic_get.
	Logic = answer.Logic
	// Param is a parameter of a logic.
	Param = answer.Param
	// Auth is who may call a logic.
	Auth = answer.Auth
	// ReleaseRef names a cached release.
	ReleaseRef = answer.ReleaseRef
	// DiffOutput is the output of schema_diff.
	DiffOutput = answer.DiffOutput
)
