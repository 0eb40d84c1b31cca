package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/store"
)

// Fuzz targets of the edges (issue 23, item 10), run briefly by .ci/run:
//
//	go test -run '^$' -fuzz '^FuzzToolArguments$' -fuzztime 20s ./mcpserver/
//
// FuzzToolArguments feeds every tool arbitrary arguments through the path
// a real call takes; FuzzArgumentBounds checks boundArguments' reading of
// raw arguments against encoding/json's. (FuzzStdioLine, which feeds the
// stdio reader arbitrary lines, is package transport's.)

// fuzzSeeds are arguments worth starting from: every tool's usual call,
// the hostile ones, and the bounds.
func fuzzSeeds() [][]byte {
	var seeds [][]byte
	add := func(v any) {
		if b, err := json.Marshal(v); err == nil && len(b) < 4<<10 {
			seeds = append(seeds, b)
		}
	}
	for _, c := range everyToolCall {
		add(c.args)
	}
	for _, h := range hostileCalls {
		add(h.args)
	}
	for _, s := range []string{
		`{"query":"user","kinds":["table","column","logic","table"]}`,
		`{"query":"user","kinds":[[[[[[[[[]]]]]]]]]}`,
		`{"qu\u0065ry":"\ud83d\ude00\u00e9\"\\","limit":null}`,
		`{"table":"main.posts","cursor":"` + strings.Repeat("A", 64) + `"}`,
		`{"from":"posts","to":"users","maxHops":6,"limit":10}`,
		`{"x":[{},{},[],1,true,null,"s"]}`,
		`[]`, `null`, `"posts"`, `7`, `{}`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// FuzzToolArguments calls a tool (one of toolNames, by index) with
// arbitrary JSON arguments over an in-memory session: the server's own
// middleware, go-sdk's decoding and validation, the handler and the store.
// Every call must be answered, as a result or a tool error with a code a
// client can act on (INVALID_ARGUMENT, NOT_FOUND, AMBIGUOUS): never a
// protocol error, never INTERNAL, never a panic (which the server would
// log and answer -32603).
func FuzzToolArguments(f *testing.F) {
	for i, s := range fuzzSeeds() {
		f.Add(uint8(i), s)
	}
	st := openStore(f)
	putCurrent(f, st, shopSnapshot(f))
	var logs lockedBuffer
	srv := New(st, Options{Target: shopDev, Version: "fuzz", Log: slog.New(slog.NewTextHandler(&logs, nil))})
	f.Cleanup(srv.Shutdown)
	cs := connect(f, srv)
	f.Fuzz(func(t *testing.T, tool uint8, args []byte) {
		if !json.Valid(args) || len(args) > MaxRequestBytes || ShapeProblem(args) != "" {
			return // a client cannot send it, or the transport answers it first (FuzzStdioLine)
		}
		name := toolNames[int(tool)%len(toolNames)]
		ctx, cancel := context.WithTimeout(context.Background(), patience)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s(%.200s): protocol error: %v", name, args, err)
		}
		if res.IsError {
			var doc errorDoc
			if len(res.Content) != 1 || json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &doc) != nil {
				t.Fatalf("%s(%.200s): a tool error that is not hubsnap's document: %+v", name, args, res.Content)
			}
			switch store.Code(doc.Error.Code) {
			case store.InvalidArgument, store.NotFound, store.Ambiguous:
			default:
				t.Fatalf("%s(%.200s): %s: %s", name, args, doc.Error.Code, doc.Error.Message)
			}
		} else if b, err := json.Marshal(res.StructuredContent); err != nil || !json.Valid(b) || len(res.Content) != 1 {
			t.Fatalf("%s(%.200s): an answer without structured content: %+v", name, args, res)
		}
		if strings.Contains(logs.String(), "panic") {
			t.Fatalf("%s(%.200s): the server logged a panic:\n%s", name, args, logs.String())
		}
	})
}

// FuzzArgumentBounds checks checkArgumentBounds, which reads raw arguments
// without decoding them, against a walk of the same arguments by
// encoding/json's tokenizer: both must find the same arguments over a
// bound (any of them), for every tool's input schema.
func FuzzArgumentBounds(f *testing.F) {
	for i, s := range fuzzSeeds() {
		f.Add(uint8(i), s)
	}
	srv := newServer(f, openStore(f))
	var inputs []*jsonschema.Schema
	for _, name := range toolNames {
		inputs = append(inputs, srv.inputs[name])
	}
	f.Fuzz(func(t *testing.T, tool uint8, args []byte) {
		if !json.Valid(args) {
			return // the JSON-RPC layer refuses it first
		}
		in := inputs[int(tool)%len(inputs)]
		got := checkArgumentBounds(args, in)
		want := tokenBounds(args, in)
		if (got == nil) != (want == nil) {
			t.Fatalf("%s: checkArgumentBounds says %v, encoding/json's tokens say %v", toolNames[int(tool)%len(toolNames)], got, want)
		}
	})
}

// tokenBounds is checkArgumentBounds by encoding/json's tokenizer: every
// value counted and its depth checked, every string decoded and its code
// points counted, duplicate keys included.
func tokenBounds(args []byte, in *jsonschema.Schema) error {
	if b := bytes.TrimLeft(args, " \t\r\n"); len(b) == 0 || b[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	values := 0
	var walk func(sch *jsonschema.Schema, depth int) error
	walk = func(sch *jsonschema.Schema, depth int) error {
		if depth > maxArgumentDepth {
			return errors.New("too deep")
		}
		if values++; values > maxArgumentValues {
			return errors.New("too many values")
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' {
				for dec.More() {
					key, err := dec.Token()
					if err != nil {
						return err
					}
					var p *jsonschema.Schema
					if sch != nil {
						p = sch.Properties[key.(string)]
					}
					if err := walk(p, depth+1); err != nil {
						return err
					}
				}
				_, err = dec.Token()
				return err
			}
			var item *jsonschema.Schema
			if sch != nil {
				item = sch.Items
			}
			for n := 1; dec.More(); n++ {
				if sch != nil && sch.MaxItems != nil && n > *sch.MaxItems {
					return errors.New("too many items")
				}
				if err := walk(item, depth+1); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case string:
			if sch != nil && sch.MaxLength != nil && utf8.RuneCountInString(v) > *sch.MaxLength {
				return errors.New("too long")
			}
		}
		return nil
	}
	return walk(in, 1)
}
