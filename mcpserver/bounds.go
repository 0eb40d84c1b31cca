package mcpserver

import (
	"context"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/store"
)

// Bounds of the tools' arguments (docs/tools.md). Every string or array
// argument has one of the types below, and each type's schema
// (argumentTypes) bounds it: schemaFor puts that schema wherever the type
// appears, so the bound is in every input schema clients see, and comes
// from the Go type (one source). A test checks that no input schema holds
// an unbounded string or array.
//
// The bounds are enforced before anything is decoded: a request is at most
// MaxRequestBytes on either transport, and boundArguments reads the raw
// arguments of a tools/call once, without allocating, refusing what is over
// a bound, nested deeper than maxArgumentDepth or holds more than
// maxArgumentValues values. go-sdk then decodes only small arguments and
// validates them against the same schema.

// MaxRequestBytes bounds one request: a body over HTTP, a line over stdio.
// The largest arguments within their bounds (a cursor of 16 KiB) fit many
// times over.
const MaxRequestBytes = 1 << 20

// Bounds of the arguments' shape; no valid arguments come near them.
const (
	maxArgumentDepth  = 8
	maxArgumentValues = 1024
)

// Name is an argument naming a connection, a logic (a "logics/" prefix
// accepted) or a release: at most maxName characters, as no name of a
// release is longer (the handlers also check it is at most maxName bytes).
type Name string

// TableName is an argument naming a table, as "table" or
// "connection.table": two names and a dot.
type TableName string

// Cursor is a nextCursor passed back, as an answer gave it.
type Cursor string

// Query is schema_search's words.
type Query string

// KindList is schema_search's kinds: at most as many as there are kinds.
type KindList []string

// RuleCode is release_check's code: one of lint.Rules.
type RuleCode string

// argumentTypes are the schemas of the argument types.
var argumentTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[Name]():      {Type: "string", MaxLength: intPtr(maxName)},
	reflect.TypeFor[TableName](): {Type: "string", MaxLength: intPtr(2*maxName + 1)},
	reflect.TypeFor[Cursor]():    {Type: "string", MaxLength: intPtr(store.MaxCursorBytes)},
	reflect.TypeFor[Query]():     {Type: "string", MaxLength: intPtr(store.MaxQueryBytes)},
	reflect.TypeFor[RuleCode]():  {Type: "string", Enum: enum(lint.RuleCodes()), MaxLength: intPtr(longest(lint.RuleCodes()))},
	reflect.TypeFor[KindList](): {Type: "array", MaxItems: intPtr(len(store.Kinds)),
		Items: &jsonschema.Schema{Type: "string", Enum: enum(store.Kinds), MaxLength: intPtr(longest(store.Kinds))}},
}

func intPtr(n int) *int { return &n }

// longest is the length of the longest of values.
func longest[T ~string](values []T) int {
	n := 0
	for _, v := range values {
		n = max(n, len(v))
	}
	return n
}

// boundArguments refuses, with INVALID_ARGUMENT, a tools/call whose raw
// arguments are over the bounds of the tool's input schema (see
// checkArgumentBounds), before go-sdk or nullArguments decode them.
func (s *Server) boundArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
			if in := s.inputs[p.Name]; in != nil {
				if err := checkArgumentBounds(p.Arguments, in); err != nil {
					return invalidArguments(err.Error()), nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

// invalidArguments is the INVALID_ARGUMENT tool error of arguments that are
// not what the input schema says.
func invalidArguments(why string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
		Text: (&toolError{Code: store.InvalidArgument, Message: "invalid arguments: " + why}).Error()}}}
}
