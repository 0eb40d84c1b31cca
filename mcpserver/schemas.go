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

// What tools/list sends of an output schema. Output schemas are read by
// clients, to check structured content and to type it, not by models:
// hosts give a model a tool's name, description and input schema. Whole,
// the inferred output schemas of the ten tools were 25 KB, most of
// tools/list (issue 27: at most 12 KB on the wire). So the advertised
// output schema is the inferred one (schemaFor, and the adjustments of
// the tools that have some) through leanOutput, a fixed transform that
// only drops constraints:
//
//   - the answer's members are listed, with their type and whether they
//     are required; a member that is an object is declared "object", and
//     a list of objects "array", without their own members (outputDepth);
//   - descriptions go: what a member means is in the tool's description
//     and in docs/tools.md, and the answer itself is what a model reads;
//   - additionalProperties: false goes: a client that checks the answer
//     must accept members that a later hubsnap adds;
//   - a nullable member stays an anyOf of its type and null (tighten).
//
// Nothing is hand-written and there is no $ref or $defs (some clients
// cannot resolve them). The tests check every answer of the fixtures and
// of a 10,000-table release against both the advertised schema and the
// whole inferred one, and decode each strictly into its Go type.

// outputDepth is how many levels of members an advertised output schema
// lists: 1, the answer's own.
const outputDepth = 1

// leanOutput returns the advertised form of the inferred output schema s
// (see above); s is left as it is.
func leanOutput(s *jsonschema.Schema) *jsonschema.Schema { return leanNode(s, outputDepth) }

// leanNode copies of s its type (or anyOf), enum and const, and depth
// levels of members: their schemas and which are required. A list's items
// are at the list's level: items with members of their own are left out
// below depth, other items (strings) are kept.
func leanNode(s *jsonschema.Schema, depth int) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	out := &jsonschema.Schema{Type: s.Type, Types: s.Types, Enum: s.Enum, Const: s.Const}
	if s.Items != nil && (depth > 0 || s.Items.Properties == nil) {
		out.Items = leanNode(s.Items, depth)
	}
	for _, alt := range s.AnyOf {
		out.AnyOf = append(out.AnyOf, leanNode(alt, depth))
	}
	if depth > 0 && s.Properties != nil {
		out.Properties = make(map[string]*jsonschema.Schema, len(s.Properties))
		for name, p := range s.Properties {
			out.Properties[name] = leanNode(p, depth-1)
		}
		out.PropertyOrder, out.Required = s.PropertyOrder, s.Required
	}
	return out
}

// limitSchema bounds the "limit" property of an input schema and returns
// the schema.
func limitSchema(in *jsonschema.Schema, lo, hi int) *jsonschema.Schema {
	min, max := float64(lo), float64(hi)
	in.Properties["limit"].Minimum, in.Properties["limit"].Maximum = &min, &max
	return in
}
