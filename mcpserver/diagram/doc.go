// Package diagram draws the neighbourhood of a table (SPEC §12): the
// shape of schema_diagram's answer (Diagram, the tool's output schema),
// the Mermaid erDiagram an assistant reads (mermaid.go), and the page of
// the MCP App ui://hubsnap/diagram that a person sees (page.go), built
// from web/ by a reproducible npm build and embedded here, so that `go
// build` never needs npm.
//
// # What is not here
//
// The neighbourhood's rows (store's diagram SQL), the tool and its
// resource (mcpserver/diagram.go) and the SVG of the CLI (package svg).
// It imports nothing of this module.
package diagram
