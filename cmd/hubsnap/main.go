// Command hubsnap pulls release snapshots from the Hub into a local,
// sanitized, indexed cache and serves them to AI assistants over MCP.
//
// Run `hubsnap --help` for the commands; README.md has the whole story.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)) }
