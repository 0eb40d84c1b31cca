// Package transport serves an mcpserver.Server to MCP clients: over stdio
// (stdio.go, with JSON-RPC batches in stdio_batch.go and the bounds of a
// message in stdio_limits.go) or over Streamable HTTP (http.go), for a
// team.
//
// Over HTTP it owns everything between the socket and MCP: the request
// log, one line per request (httplog.go); access by the tokens of
// `hubsnap token create` or by OAuth 2.1 access tokens (http_access.go,
// and the resource server in package oauth below); the era of the
// protocol, stateful sessions up to 2025-11-25 or session-less 2026-07-28
// requests (http_route.go); and the session table, idle timeouts, the cap
// with its fair share and revocation (http_sessions.go). The order of
// every layer a request goes through, HTTP and MCP, is written once in
// middleware.go; every HTTP status, and every JSON-RPC error a transport
// answers itself, is made in errors.go.
//
// # What is not here
//
// The tools, resources, completions and the server's own MCP middleware
// (recovery, cancellation, scopes, argument errors and bounds) are
// package mcpserver's: they hold on every transport, in-memory ones too.
// Which scope a tool or resource needs is mcpserver's too
// (mcpserver.Server.MissingScope); the token file and the scope patterns
// are package access's. This package imports mcpserver, never the
// reverse, and reaches no SQL. cmd/hubsnap wires the two.
package transport
