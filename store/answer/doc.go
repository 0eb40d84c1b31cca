// Package answer holds the Go types of the tools' answers that more than
// one layer reads: each type is the output schema its tool advertises
// (mcpserver infers the JSON schema from it, doc strings from its
// jsonschema tags) and the shape that exactly one statement or builder in
// package store writes. schema_get_table's Table and logic_get's Logic are
// composed whole by SQL (store/table_json.go, store/logic.go);
// schema_diff's DiffOutput is built in Go by store (store/diff*.go) from
// these types, so `hubsnap snapshot diff` prints the same value without
// decoding JSON. mcpserver's contract tests tie each statement to its type.
//
// The analysis result of a logic is the release model's (snapshot.Problem,
// snapshot.ResultColumn, ...): the answers hold those types, with their
// descriptions, rather than copies of them.
//
// It is a leaf: it imports the standard library and the model
// (indexer/snapshot) only, so that store, mcpserver and cmd can all use
// it. Tool inputs, and answers that only mcpserver reads, stay in
// mcpserver.
package answer
