package mcpserver

import (
	"context"
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
// Out (see schemaFor) unless t already holds them (adjusted in code).
//
// go-sdk validates the arguments against the input schema, as for any
// typed tool. The answer is another matter: given a typed Out, go-sdk
// would marshal it, decode that into a map to validate it against the
// output schema and marshal it again, for every call — most of a call's
// cost, and growing with the answer (10,000 tables). Here h's result
// already carries the answer as JSON, written once by answer, and go-sdk
// sees no Out to redo it. The output schema is still declared from Out,
// and the tests check every tool's answers against it.
func addTool[In, Out any](s *Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	if t.InputSchema == nil {
		t.InputSchema = schemaFor[In]()
	}
	if t.OutputSchema == nil {
		t.OutputSchema = schemaFor[Out]()
	}
	mcp.AddTool(s.Server, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		res, _, err := h(ctx, req, in)
		return res, nil, err
	})
}
