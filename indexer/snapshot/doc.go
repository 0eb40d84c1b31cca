// Package snapshot is hubsnap's release model: the Go types of a release
// (Snapshot, Release, Origin, Connection, Table, Column, ForeignKey, Index,
// Logic, Param, Auth) and of the analysis result of a logic (Analysis,
// TableAccess, ResultColumn, Binding, Problem and its codes; analysis.go),
// the rules of the names in it, the strict streaming decoder of the
// snapshot format, and the encoder of release files.
//
// It is a leaf: it imports nothing of hubsnap and no SQLite, so every layer
// reads it — store indexes it, indexer syncs it, the logic analysis, the
// diagrams and the lint work on it — as every output of tbls reads its one
// schema model.
//
// # Decoding
//
// A Decoder reads a snapshot document (docs/design.md, "The snapshot
// format") token by token and hands out its parts as a pull iterator:
//
//	d := snapshot.NewDecoder(r)
//	defer d.Close()
//	for d.Next() {
//		part := d.Part() // a release, origin, connection, table or logic
//	}
//	err := d.Err() // nil, an *Error naming every problem's path, or r's error
//
// Decoding is strict (exact keys, no duplicates, valid UTF-8), checks the
// format's rules and bounds with the path of every problem, and sanitizes
// by construction: only the fields the format names are decoded, so
// connection URLs, passwords and secrets never get further. A Decoder
// holds one table or logic at a time and a compact record of names for the
// checks that span tables, whatever the size of the release. Decode reads
// a whole document into a Snapshot, for callers that want it whole.
//
// Files: decoder.go (the Decoder and the document), decode_release.go
// (formatVersion, release, origin, connections), decode_table.go and
// decode_logic.go (tables, logics), decode_structure.go and
// decode_value.go (objects and arrays; strings, numbers, lists of names),
// tokens.go (the token reader and the positions of errors), check.go and
// references.go (the rules within a table or logic, and across tables),
// problems.go and error.go (paths and the Error), names.go (name rules),
// collect.go (Decode); model.go and analysis.go hold the types.
//
// # Encoding
//
// An Encoder writes a release file part by part, in the format's canonical
// form with every default written out (file_format.go, encoder.go); Encode
// writes a whole Snapshot.
//
// What is not here: SQL and the index (package store), the Hub client,
// files and the cache (package indexer), the tools (package mcpserver).
package snapshot
