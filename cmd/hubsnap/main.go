package main

import (
	"os"

	"github.com/hubsnap/hubsnap/indexer/analysis"
)

func main() {
	analysis.SetCompiler(compileParserInChild) // index_parser.go
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
