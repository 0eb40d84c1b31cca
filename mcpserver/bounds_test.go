package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/hubsnap/hubsnap/store"
)

// Every string and array a tool takes is bounded in its input schema, as
// tools/list shows it (issue 23, item 9).
func TestInputSchemasAreBounded(t *testing.T) {
	cs := shopSession(t)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: input schema: %v", tool.Name, err)
		}
		var walk func(path string, s *jsonschema.Schema)
		walk = func(path string, s *jsonschema.Schema) {
			switch s.Type {
			case "string":
				if s.MaxLength == nil {
					t.Errorf("%s: %s is a string without maxLength", tool.Name, path)
				}
			case "array":
				if s.MaxItems == nil || s.Items == nil {
					t.Errorf("%s: %s is an array without maxItems or items", tool.Name, path)
				} else {
					walk(path+"[]", s.Items)
				}
			case "object":
				if s.AdditionalProperties == nil {
					t.Errorf("%s: %s is an object that takes any property", tool.Name, path)
				}
				for name, p := range s.Properties {
					walk(path+"."+name, p)
				}
			case "integer", "boolean", "number":
			default:
				t.Errorf("%s: %s has type %q (%v)", tool.Name, path, s.Type, s.Types)
			}
		}
		walk("arguments", &s)
	}
}

// checkArgumentBounds reads strings as the validator counts them, arrays
// and nesting as they are, and leaves the rest to go-sdk.
func TestCheckArgumentBounds(t *testing.T) {
	in := searchSchemas()[0]
	q := func(s string) string { return `{"query":"` + s + `"}` }
	for _, c := range []struct{ args, want string }{
		{`{}`, ""},
		{`  { "query" : "user" , "kinds" : [ "table" , "logic" ] , "limit" : 5 }  `, ""},
		{`[]`, ""}, {`"x"`, ""}, {`null`, ""}, {`7`, ""},
		{q(strings.Repeat("a", store.MaxQueryBytes)), ""},
		{q(strings.Repeat("a", store.MaxQueryBytes+1)), "query: at most 1024 characters"},
		{q(strings.Repeat("é", store.MaxQueryBytes)), ""}, // 2 bytes each, one character
		{q(strings.Repeat("😀", store.MaxQueryBytes)), ""},
		{q(strings.Repeat(`\u00e9`, store.MaxQueryBytes)), ""},
		{q(strings.Repeat(`\ud83d\ude00`, store.MaxQueryBytes)), ""}, // a pair is one
		{q(strings.Repeat(`\ud83d\ude00`, store.MaxQueryBytes) + "x"), "query: at most"},
		{q(strings.Repeat(`\"`, store.MaxQueryBytes)), ""},
		{q(strings.Repeat(`\\`, store.MaxQueryBytes+1)), "query: at most"},
		{q(strings.Repeat("\xff", store.MaxQueryBytes)), ""}, // invalid bytes: one U+FFFD each
		{q(strings.Repeat("\xff", store.MaxQueryBytes+1)), "query: at most"},
		{`{"kinds":["table","column","logic"]}`, ""},
		{`{"kinds":["table","column","logic","table"]}`, "kinds: at most 3 items"},
		{`{"kinds":[]}`, ""},
		{`{"kinds":["` + strings.Repeat("x", 7) + `"]}`, "kinds: at most 6 characters"},
		{`{"kinds":[[[[[[[[[]]]]]]]]]}`, "nested deeper than 8 levels"},
		{`{"kinds":[[[[[[]]]]]]}`, ""}, // deep but not too deep: go-sdk says it is not a string
		{`{"x":[` + strings.Repeat(`1,`, maxArgumentValues) + `1]}`, "more than 1024 values"},
		{`{"x":"` + strings.Repeat("a", 1<<16) + `"}`, ""},                       // unknown: go-sdk refuses it by name
		{`{"qu\u0065ry":"` + strings.Repeat("a", 2000) + `"}`, "query: at most"}, // an escaped key is read as go-sdk reads it
		{`{"query":"a","query":"` + strings.Repeat("a", 2000) + `"}`, "query: at most"},
	} {
		var v any
		if err := json.Unmarshal([]byte(c.args), &v); err != nil {
			t.Fatalf("test case is not JSON: %v: %.80s", err, c.args)
		}
		err := checkArgumentBounds([]byte(c.args), in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%.80s: %v, want no error", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%.80s: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}

// Through a real call, every bounded argument of every tool: one over its
// bound is INVALID_ARGUMENT naming it; at its bound, no bound is named.
func TestArgumentBoundsThroughCalls(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	cs := connect(t, srv)
	for tool, in := range srv.inputs {
		for name, p := range in.Properties {
			var at, over any
			var want string
			switch {
			case p.MaxLength != nil:
				at, over = strings.Repeat("a", *p.MaxLength), strings.Repeat("a", *p.MaxLength+1)
				want = fmt.Sprintf("%s: at most %d characters", name, *p.MaxLength)
			case p.MaxItems != nil:
				at, over = store.Kinds[:*p.MaxItems], append(store.Kinds[:*p.MaxItems:*p.MaxItems], store.Kinds[0])
				want = fmt.Sprintf("%s: at most %d items", name, *p.MaxItems)
			default:
				continue
			}
			args := func(v any) map[string]any {
				a := map[string]any{name: v}
				for _, r := range in.Required {
					if r != name {
						a[r] = "posts"
					}
				}
				return a
			}
			if msg := wantCode(t, call(t, cs, tool, args(over)), store.InvalidArgument); !strings.Contains(msg, want) {
				t.Errorf("%s %s over its bound: %q, want %q", tool, name, msg, want)
			}
			res := call(t, cs, tool, args(at))
			if res.IsError && strings.Contains(text(t, res), "at most") && strings.Contains(text(t, res), "characters") {
				t.Errorf("%s %s at its bound: %s", tool, name, text(t, res))
			}
		}
	}
}
