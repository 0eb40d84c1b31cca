// Package mcpserver is hubsnap's MCP server (docs/tools.md): the
// schema tools (tables.go), the logic tools (logics.go), release_info
// (release.go), release_check (check.go), schema_search (search.go) and
// the others, one file per family, with resources and completions
// (resources.go), the scopes each needs (scopes.go), the server's own MCP
// middleware (layers.go) and the mapping of its errors (errors.go).
//
// It does not know which transport it runs on: package transport serves
// a Server over stdio or Streamable HTTP (sessions, access, the request
// log) and imports this package, never the reverse. The order of every
// layer a request goes through is written once in transport's
// middleware.go.
//
// Every answer is read from the SQLite index (package store) at call time,
// for the current release of one project and environment; nothing of a
// release is held in memory, so a release that changes or goes away is seen
// by the next call. Most answers are JSON that one SQL statement composes;
// a handler passes those bytes on as they are (see addTool).
//
// Tool input and output schemas are inferred from the Go types below (one
// source of truth); where a tag cannot say something, the inferred schema
// is adjusted in code (see schemas.go). Tests check that every answer of a
// 10,000-table release decodes into those types and validates against
// those schemas.
//
// # What is not here
//
// The transports (stdio, Streamable HTTP, its sessions, access by issued
// tokens or OAuth, the request log, and the HTTP statuses and JSON-RPC
// errors they answer themselves) are package transport's
// (mcpserver/transport). The SQL and the answers' JSON are package
// store's, the answers' Go types package store/answer's, the token file
// and the scope patterns package access's; the diagram's Mermaid text and
// page are package diagram's. Nothing here imports net/http's server side
// or knows a session table.
package mcpserver
