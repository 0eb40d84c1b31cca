package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
)

// A handler answers one tool call with the answer's JSON (most often
// composed by one SQL statement of package store), or an error.
type handler[In any] func(ctx context.Context, req *mcp.CallToolRequest, in In) ([]byte, error)

// addTool registers tool t, answered by h, for callers whose token has
// one of scopes (see checkScopes). Its input and output schemas are
// inferred from In and Out (see schemaFor) unless t already holds them;
// the output schema is advertised lean (see leanOutput).
//
// go-sdk validates the arguments against the input schema, as for any
// typed tool. The answer is another matter: given a typed Out, go-sdk
// would marshal it, decode that into a map to validate it against the
// output schema and marshal it again, for every call. Here the answer
// already is JSON, and it is sent as it is: as the text block and as the
// structured content. The output schema is still declared from Out, and
// the tests check every tool's answers against it.
func addTool[In, Out any](s *Server, t *mcp.Tool, scopes []access.Scope, h handler[In]) {
	if t.InputSchema == nil {
		t.InputSchema = schemaFor[In]()
	}
	if t.OutputSchema == nil {
		t.OutputSchema = schemaFor[Out]()
	}
	t.OutputSchema = leanOutput(t.OutputSchema.(*jsonschema.Schema))
	s.scopes[t.Name] = scopes
	s.inputs[t.Name], _ = t.InputSchema.(*jsonschema.Schema)
	mcp.AddTool(s.mcp, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		answer, err := h(ctx, req, in)
		if err == nil {
			err = checkAnswer(answer) // go-sdk would drop it silently (answer.go)
		}
		if err != nil {
			return nil, nil, s.fail(ctx, t.Name, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(answer)}},
			StructuredContent: json.RawMessage(answer)}, nil, nil
	})
}

// marshal is the answer of a tool whose answer is built in Go.
func marshal(v any) ([]byte, error) { return json.Marshal(v) }

// readOnly are the annotations of every hubsnap tool: they read a local
// snapshot and nothing else. The title is sent here only, not again as
// the tool's own title: every protocol version reads it here, and a
// client of 2025-06-18 or later falls back to it (tools/list is kept
// small: see leanOutput). destructiveHint is left out: the protocol gives
// it a meaning only for tools that are not read-only. idempotentHint
// stays, true: go-sdk always sends it, so leaving it out would say false.
func readOnly(title string) *mcp.ToolAnnotations {
	f := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &f}
}
