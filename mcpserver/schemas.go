package mcpserver

import (
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaFor infers the JSON schema of T, the one source of a tool's input
// or output schema, and adjusts what Go types cannot say: hubsnap never
// sends a JSON null for a list (empty lists are [] or left out), so lists
// are plain "array" rather than the inferred ["null", "array"], which some
// MCP hosts reject. A field that is really nullable (a pointer, such as
// primaryKey) keeps its null, as anyOf (see portableNull). The argument
// types (bounds.go) get their bounded schemas.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: argumentTypes})
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
	for name, p := range s.Properties {
		tighten(p)
		switch {
		case len(p.Types) != 2 || p.Types[0] != "null":
		case !slices.Contains(s.Required, name):
			// An optional pointer is left out when nil, never null.
			p.Type, p.Types = p.Types[1], nil
		default:
			s.Properties[name] = portableNull(p)
		}
	}
}

// portableNull rewrites a required, nullable value, {"type": ["null",
// "object"], ...} as go-sdk infers a pointer, as {"anyOf": [{...the
// object...}, {"type": "null"}]}: type arrays draw warnings from strict validators
// (the MCP Inspector's) and are refused by some hosts, where anyOf is
// understood everywhere. The description stays on the outside.
func portableNull(s *jsonschema.Schema) *jsonschema.Schema {
	obj := *s
	obj.Types, obj.Type, obj.Description = nil, s.Types[1], ""
	return &jsonschema.Schema{Description: s.Description,
		AnyOf: []*jsonschema.Schema{&obj, {Type: "null"}}}
}

// limitSchema bounds the "limit" property of an input schema and returns
// the schema.
func limitSchema(in *jsonschema.Schema, lo, hi int) *jsonschema.Schema {
	min, max := float64(lo), float64(hi)
	in.Properties["limit"].Minimum, in.Properties["limit"].Maximum = &min, &max
	return in
}
