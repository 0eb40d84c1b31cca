// Package svg draws a schema diagram as an SVG document for `hubsnap
// snapshot diagram --format svg`, with the very code the MCP App draws
// with (draw.js, built from ../web by its npm build: dagre and the
// drawing function) run in goja, a JavaScript engine in pure Go. Only the
// CLI uses it; `hubsnap serve` never starts a JavaScript engine.
//
// # What is not here
//
// The diagram's model and Mermaid text (package diagram) and the page's
// sources (../web). It imports nothing of this module.
package svg
