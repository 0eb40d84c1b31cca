package migrations

import "embed"

// FS holds the migration files. Their names sort in the order they apply.
//
//go:embed *.sql
var FS embed.FS
