// Package migrations holds the SQL that builds hubsnap's index, as numbered
// files embedded in the binary.
//
// Files are named NNNN_description.sql and applied in order by package store,
// one transaction per file, each recorded in the schema_migrations table.
// A file that has shipped is never edited: change the schema with a new file.
//
// # What is not here
//
// Applying them (package store, migrate.go) and answer formatting: the
// files hold the relational schema only.
package migrations
