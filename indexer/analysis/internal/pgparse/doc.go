// Package pgparse is PostgreSQL's own parser for the logic analysis:
// libpg_query (PostgreSQL 17's scanner and grammar) compiled to
// WebAssembly and run by wazero, so no cgo, and the parse tree it returns,
// decoded into Go.
//
// A Parser owns the compiled module and a pool of its instances, and is
// safe for concurrent use. Parse returns the parse tree of SQL (a
// ParseResult of Nodes), Scan the scanner's Tokens; an *Error is
// PostgreSQL rejecting the SQL, with its message and position. Nothing is
// compiled before the first call (or Ready, Prepare); SetCompiler and
// Compile let another process do the compile, which holds a lot of memory.
//
// Only the node types and fields the analysis reads are decoded; any other
// node type is kept by name (Node.Other), so the analysis knows it met
// something it does not read.
//
// Files: parser.go (the Parser, its two engines and pool of instances),
// instance.go (one instance of the module, its stack and memory),
// libpgquery_calls.go (the calls into libpg_query: Parse, Scan), wasix.go
// (the WASIX host functions PostgreSQL's setjmp and longjmp need),
// wasm_strip.go (the module without its debug sections), compile.go (the
// compile in another process), scan.go (the scanner's tokens), decode*.go
// (the decoder of the JSON parse tree), ast.go, ast_from.go and
// ast_stmt.go (the nodes).
//
// The package is internal to package analysis, which alone gives SQL its
// meaning; it imports nothing of hubsnap.
package pgparse
