// Command hubsnap pulls release snapshots from the Hub into a local,
// sanitized, indexed cache and serves them to AI assistants over MCP.
//
// Run `hubsnap --help` for the commands; README.md has the whole story.
//
// This package is cobra wiring only: each command is built by a
// constructor (newSyncCommand, ...) that turns flags and settings into an
// Options struct and calls a run function (runSync, ...), which tests call
// directly; exit codes are mapped from errors in one place. The work is
// done by package indexer (sync, import, prune, the cache) and package
// mcpserver (the MCP server), which serve.go hands to a transport of
// package mcpserver/transport (stdio, or Streamable HTTP); the demo
// (demo.go, demo_serve.go) drives them on an in-process Hub. main is in
// root.go, beside the root command.
//
// cmd/hubsnap is the only package that imports both indexer and mcpserver
// and the only one that imports cobra (layout_test.go checks the imports
// of every package against the map in docs/design.md). What is not here:
// any SQL, any MCP handler, any HTTP handler.
package main
