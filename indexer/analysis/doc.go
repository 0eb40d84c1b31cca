// Package analysis understands a logic's SQL against its release's schema
// (SPEC §11): which tables it reads and writes, what a row of its answer
// looks like, where each parameter goes, and the problems PostgreSQL would
// certainly raise. The SQL is parsed with PostgreSQL's own grammar
// (libpg_query, compiled to WebAssembly and run by wazero, so no cgo:
// package internal/pgparse, beneath this one); the package resolves names
// and types itself, as PostgreSQL's parse analysis does, for the
// constructs it knows, and leaves the rest unjudged rather than guess: a
// problem is reported only when it is certain.
//
// The package is a leaf: it imports nothing of hubsnap but the release
// model (package snapshot, which also holds the result, snapshot.Analysis)
// and no SQLite. It works on the model's types: the caller builds the
// release's Tables once per release from its snapshot.Tables (NewTables,
// or TablesFrom to read them when logics name them) and calls Analyze per
// snapshot.Logic. docs/analysis.md describes the rules.
//
// Files: analyzer.go (the Analyzer, its options and parser), analyze.go
// (Analyze), placeholders.go (`:name` to $n, and positions back),
// tables.go and tables_source.go (the release's tables), state.go and
// scope.go (one logic's analysis: its findings, names and FROM items),
// query.go, cte.go, from.go, join.go and modify.go (statements and
// clauses), expr.go and expr_*.go (expressions), names.go (the names of
// result columns), types.go and kinds.go (types, and the kinds PARAM_TYPE
// compares), builtin_*.go (PostgreSQL's built-ins; builtin_functions.go
// says how to add one).
package analysis
