package mcpserver

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// schemaFor infers the JSON schema of T, the one source of a tool's input
// or output schema, and adjusts what Go types cannot say: hubsnap never
// sends a JSON null for a list (empty lists are [] or left out), so lists
// are plain "array" rather than the inferred ["null", "array"], which some
// MCP hosts reject. A field that is really nullable (a pointer, such as
// primaryKey) keeps its null.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(T), err)) // a programming error, caught by any test
	}
	tighten(s)
	return s
}

func tighten(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" && s.Types[1] == "array" {
		s.Type, s.Types = "array", nil
	}
	tighten(s.Items)
	for _, p := range s.Properties {
		tighten(p)
	}
}

// addTool registers a typed tool whose schemas are inferred from In and
// Out (see schemaFor).
func addTool[In, Out any](s *Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	t.InputSchema = schemaFor[In]()
	t.OutputSchema = schemaFor[Out]()
	mcp.AddTool(s.Server, t, h)
}
