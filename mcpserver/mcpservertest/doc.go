// Package mcpservertest holds what the tests of package mcpserver and of
// package transport share: the shop fixture written into a real index as
// `hubsnap snapshot sync` writes it (its logics analysed), and the checks
// of a tool's answer as a client sees it (docs/tools.md).
//
// # What is not here
//
// No server: it does not import mcpserver, so that mcpserver's own tests
// may use it; each test builds its server itself. No production code
// imports it.
package mcpservertest
