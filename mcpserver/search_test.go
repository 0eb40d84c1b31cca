package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// searchTool calls schema_search and returns its answer, after success has
// checked that the text block holds the same JSON as structuredContent.
func searchTool(tb testing.TB, cs *mcp.ClientSession, args any) SearchOutput {
	tb.Helper()
	return success[SearchOutput](tb, call(tb, cs, "schema_search", args))
}

// hitNames renders hits as short strings for comparisons and messages:
// table:conn.name, column:conn.table.column, logic:name, each with /match.
func hitNames(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		switch h.Kind {
		case "table":
			out[i] = "table:" + h.Connection + "." + h.Table
		case "column":
			out[i] = "column:" + h.Connection + "." + h.Table + "." + h.Column
		default:
			out[i] = h.Kind + ":" + h.Logic
		}
		out[i] += "/" + h.Match
	}
	return out
}

// hasTable tells whether hits hold a table hit for name.
func hasTable(hits []Hit, name string) bool {
	return slices.ContainsFunc(hits, func(h Hit) bool { return h.Kind == "table" && h.Table == name })
}

// mentions tells whether any hit names table name (as a table or as the
// table of a column).
func mentions(hits []Hit, table string) bool {
	return slices.ContainsFunc(hits, func(h Hit) bool { return h.Table == table })
}

// goTypeNames are pieces of Go's own wording that must never reach a client.
var goTypeNames = []string{"mcpserver.", "store.", "SearchInput", "SearchQuery", "map[string]", "interface {}",
	"interface{}", "[]string", "float64", "int64", "Go struct", "Go value", "reflect", "json: cannot"}

// checkMessage fails when an error message is not one clear line.
func checkMessage(tb testing.TB, msg string) {
	tb.Helper()
	if strings.ContainsAny(msg, "\n\r") {
		tb.Errorf("message is not one line: %q", msg)
	}
	if len(msg) > 300 {
		tb.Errorf("message is %d bytes long: %.200q...", len(msg), msg)
	}
	var found []string
	for _, g := range goTypeNames {
		if strings.Contains(msg, g) {
			found = append(found, g)
		}
	}
	if len(found) > 0 {
		tb.Errorf("message names Go internals %q: %s", found, msg)
	}
}

// searchOutputSchema returns schema_search's advertised output schema, resolved.
func searchOutputSchema(tb testing.TB, cs *mcp.ClientSession) *jsonschema.Resolved {
	tb.Helper()
	b, err := json.Marshal(listTools(tb, cs)["schema_search"].OutputSchema)
	if err != nil {
		tb.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		tb.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		tb.Fatalf("resolve the output schema: %v", err)
	}
	return r
}

// The answer is structuredContent, the text block is the same JSON, with
// the fields in the order of the Go types ("hits" first, each hit starting
// with "kind"), and it fits the advertised output schema.
func TestSearchStructuredAndTextAgree(t *testing.T) {
	cs := shopSession(t)
	resolved := searchOutputSchema(t, cs)
	for _, tc := range []struct {
		query string
		want  []Hit
	}{
		{"purch", []Hit{
			{Kind: "table", Table: "purchases", Connection: "main", Match: "name"},
			{Kind: "logic", Logic: "purchase_item", Match: "name"},
		}},
		{"users email", []Hit{
			{Kind: "column", Table: "users", Connection: "main", Column: "email", Match: "name"},
			{Kind: "logic", Logic: "admin/users", Match: "sql", Text: "SELECT id, email FROM users ORDER BY created_at DESC"},
		}},
		{"blog", []Hit{{Kind: "table", Table: "posts", Connection: "main", Match: "comment", Text: "Blog posts"}}},
		{"writer", []Hit{{Kind: "column", Table: "posts", Connection: "main", Column: "author_id", Match: "comment", Text: "writer"}}},
		{"draft", []Hit{{Kind: "logic", Logic: "posts/publish", Match: "description", Text: "Publish a draft post"}}},
		// Text is the SQL, or an excerpt of it around ILIKE.
		{"ilike", []Hit{{Kind: "logic", Logic: "items/search", Match: "sql",
			Text: "SELECT id, name, price_cents FROM items WHERE name ILIKE '%' || :q || '%' LIMIT :limit"}}},
		{"zebra", []Hit{}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res := call(t, cs, "schema_search", map[string]any{"query": tc.query})
			out := success[SearchOutput](t, res) // text == structuredContent, as JSON values
			if diff := cmp.Diff(tc.want, out.Hits, cmp.Comparer(sameExcerpt)); diff != "" {
				t.Errorf("hits (-want +got):\n%s", diff)
			}

			// Byte for byte: the text is the Go value marshalled, in field order.
			txt := text(t, res)
			want, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			if txt != string(want) {
				t.Errorf("text = %s\nwant   %s", txt, want)
			}
			if !strings.HasPrefix(txt, `{"hits":[`) {
				t.Errorf("text does not start with the hits list: %s", txt)
			}
			var doc struct {
				Hits []json.RawMessage `json:"hits"`
			}
			if err := json.Unmarshal([]byte(txt), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Hits == nil {
				t.Errorf("hits is null, want a list: %s", txt)
			}
			for _, h := range doc.Hits {
				if !bytes.HasPrefix(h, []byte(`{"kind":`)) {
					t.Errorf("hit does not start with \"kind\": %s", h)
				}
			}

			// structuredContent fits the advertised output schema.
			b, _ := json.Marshal(res.StructuredContent)
			var v any
			json.Unmarshal(b, &v)
			if err := resolved.Validate(v); err != nil {
				t.Errorf("structuredContent does not fit the output schema: %v\n%s", err, b)
			}
		})
	}
}

// sameExcerpt compares a hit's text with the whole text it comes from:
// equal, or a piece of it cut with … on the side(s) cut.
func sameExcerpt(a, b string) bool {
	if a == b {
		return true
	}
	if utf8.RuneCountInString(a) < utf8.RuneCountInString(b) {
		a, b = b, a
	}
	inner, cutStart := strings.CutPrefix(b, "…")
	inner, cutEnd := strings.CutSuffix(inner, "…")
	return (cutStart || cutEnd) && inner != "" && strings.Contains(a, inner) &&
		cutStart == !strings.HasPrefix(a, inner) && cutEnd == !strings.HasSuffix(a, inner)
}

// Bad arguments are INVALID_ARGUMENT tool errors with one clear line that
// names the argument, never Go's own type names.
func TestSearchArgumentValidation(t *testing.T) {
	cs := shopSession(t)
	for _, tc := range []struct {
		name string
		args any
		says string // the message names this
	}{
		{"unknown kind", map[string]any{"query": "user", "kinds": []string{"view"}}, "kinds"},
		{"one bad kind among good", map[string]any{"query": "user", "kinds": []string{"table", "tables"}}, "kinds"},
		{"kind upper case", map[string]any{"query": "user", "kinds": []string{"TABLE"}}, "kinds"},
		{"kinds a string", map[string]any{"query": "user", "kinds": "table"}, "kinds"},
		{"kinds of numbers", map[string]any{"query": "user", "kinds": []int{1}}, "kinds"},
		// 0 is what "left out" decodes to, but a client that sends it
		// explicitly breaks the advertised minimum of 1: the schema
		// rejects it before the handler could take it as the default.
		{"limit 0", map[string]any{"query": "user", "limit": 0}, "limit"},
		{"limit -1", map[string]any{"query": "user", "limit": -1}, "limit"},
		{"limit 101", map[string]any{"query": "user", "limit": 101}, "limit"},
		{"limit 2.5", map[string]any{"query": "user", "limit": 2.5}, "limit"},
		{"limit string", map[string]any{"query": "user", "limit": "5"}, "limit"},
		{"limit huge", json.RawMessage(`{"query":"user","limit":9223372036854775808}`), "limit"},
		{"missing query", map[string]any{}, "query"},
		{"only limit", map[string]any{"limit": 5}, "query"},
		{"query null", map[string]any{"query": nil}, "query"}, // null is left out: query is missing
		{"query number", map[string]any{"query": 5}, "query"},
		{"query list", map[string]any{"query": []string{"user"}}, "query"},
		{"null arguments", json.RawMessage(`null`), "query"},
		{"unknown argument", map[string]any{"query": "user", "connection": "main"}, "connection"},
		{"query of 2000 bytes", map[string]any{"query": strings.Repeat("a", 2000)}, "query"},
		{"query of 1025 bytes", map[string]any{"query": strings.Repeat("b", 1025)}, "query"},
		{"empty query", map[string]any{"query": ""}, "query"},
		{"blank query", map[string]any{"query": " \t\n "}, "query"},
		{"17 words", map[string]any{"query": "a b c d e f g h i j k l m n o p q"}, "query"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := wantCode(t, call(t, cs, "schema_search", tc.args), store.InvalidArgument)
			checkMessage(t, msg)
			if !strings.Contains(msg, tc.says) {
				t.Errorf("message does not name %q: %s", tc.says, msg)
			}
		})
	}

	// The edges of what is allowed.
	for _, tc := range []struct {
		name string
		args any
	}{
		{"limit 1", map[string]any{"query": "user", "limit": 1}},
		{"limit 100", map[string]any{"query": "user", "limit": 100}},
		{"limit 5.0", json.RawMessage(`{"query":"user","limit":5.0}`)},
		{"kinds empty", map[string]any{"query": "user", "kinds": []string{}}},
		{"kinds repeated", map[string]any{"query": "user", "kinds": []string{"table", "table"}}},
		{"every kind", map[string]any{"query": "user", "kinds": []string{"table", "column", "logic"}}},
		{"query of 1024 bytes", map[string]any{"query": strings.Repeat("c", 1024)}},
		{"16 words", map[string]any{"query": "a b c d e f g h i j k l m n o p"}},
		{"only punctuation", map[string]any{"query": "!!! ??? ..."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			searchTool(t, cs, tc.args)
		})
	}
}

// Arguments go-sdk cannot even decode still get a message free of Go's
// type names. (go-sdk words these as "json: cannot unmarshal ... into Go
// struct field map[string]interface {}.limit of type float64", and
// argumentErrors passes that on.)
func TestSearchUndecodableArgumentsNameNoGoTypes(t *testing.T) {
	cs := shopSession(t)
	for _, tc := range []struct {
		name string
		args json.RawMessage
	}{
		{"limit beyond float64", json.RawMessage(`{"query":"user","limit":1e400}`)},
		{"arguments a list", json.RawMessage(`["user"]`)},
		{"arguments a string", json.RawMessage(`"user"`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := wantCode(t, call(t, cs, "schema_search", tc.args), store.InvalidArgument)
			checkMessage(t, msg)
		})
	}
}

// No current release: NO_RELEASE, however the server got there, even for a
// query that could match nothing; bad arguments are still reported as
// such. A current release without tables or logics is no error.
func TestSearchNoRelease(t *testing.T) {
	for _, nt := range noReleaseTests {
		t.Run(nt.name, func(t *testing.T) {
			st := openStore(t)
			nt.setup(t, st)
			cs := connect(t, newServer(t, st))
			for _, q := range []string{"user", "purch", "!!!", "zebra"} {
				msg := wantCode(t, call(t, cs, "schema_search", map[string]any{"query": q}), store.NoRelease)
				checkMessage(t, msg)
			}
			wantCode(t, call(t, cs, "schema_search", map[string]any{"query": "user", "limit": 101}), store.InvalidArgument)
			wantCode(t, call(t, cs, "schema_search", map[string]any{"query": strings.Repeat("x", 2000)}), store.InvalidArgument)
		})
	}
	t.Run("empty release", func(t *testing.T) {
		cs := sessionWith(t, emptySnapshot())
		for _, q := range []string{"user", "!!!"} {
			out := searchTool(t, cs, map[string]any{"query": q})
			if len(out.Hits) != 0 || out.More {
				t.Errorf("%q in an empty release = %+v, want no hits", q, out)
			}
		}
	})
}

// Hostile queries are plain text: they never crash the server, never reach
// FTS5 as syntax, and never answer INTERNAL. After each, a normal search
// still works.
func TestSearchHostileQueries(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	var logs lockedBuffer
	srv := New(st, Options{Target: shopDev, Version: "test", Log: slog.New(slog.NewTextHandler(&logs, nil))})
	t.Cleanup(srv.Shutdown)
	cs := connect(t, srv)
	normal := searchTool(t, cs, map[string]any{"query": "purch"})
	if !hasTable(normal.Hits, "purchases") {
		t.Fatalf("purch = %v, want the purchases table", hitNames(normal.Hits))
	}

	for _, tc := range []struct {
		name string
		args any
	}{
		{"NUL alone", map[string]any{"query": "\x00"}},
		{"NUL after a word", map[string]any{"query": "users\x00"}},
		{"NULs between words", map[string]any{"query": "\x00purch\x00\x00ases\x00"}},
		{"lone high surrogate", json.RawMessage(`{"query":"\ud800"}`)},
		{"lone low surrogate", json.RawMessage(`{"query":"\udfff users"}`)},
		{"two high surrogates", json.RawMessage(`{"query":"us\ud800\ud800ers"}`)},
		{"raw invalid UTF-8", json.RawMessage("{\"query\":\"users \xff\xfe\xc3\"}")},
		{"10k Hangul", map[string]any{"query": strings.Repeat("한", 10_000)}},
		{"10k accented", map[string]any{"query": strings.Repeat("é", 10_000)}},
		{"10k emoji", map[string]any{"query": strings.Repeat("🙂", 10_000)}},
		{"1023 bytes of Hangul", map[string]any{"query": strings.Repeat("한", 341)}},
		{"fts quote star near", map[string]any{"query": `" OR * NEAR(`}},
		{"fts column filter", map[string]any{"query": `{name}:`}},
		{"fts column filter and word", map[string]any{"query": `{name comment}: users`}},
		{"fts initial token", map[string]any{"query": `^x`}},
		{"fts boolean", map[string]any{"query": `a AND b OR c`}},
		{"fts not", map[string]any{"query": `users NOT posts`}},
		{"fts near", map[string]any{"query": `NEAR(users posts, 2)`}},
		{"fts prefix star", map[string]any{"query": `us*`}},
		{"fts column colon", map[string]any{"query": `name:users`}},
		{"fts unbalanced", map[string]any{"query": `((("users"`}},
		{"fts quotes only", map[string]any{"query": `""""""`}},
		{"fts plus minus", map[string]any{"query": `+users -posts`}},
		{"sql injection", map[string]any{"query": `users' OR '1'='1`}},
		{"sql comment", map[string]any{"query": `users; DROP TABLE search; --`}},
		{"like metacharacters", map[string]any{"query": `%_% \`}},
		{"emoji", map[string]any{"query": "🙂"}},
		{"emoji and word", map[string]any{"query": "👍🏽 users"}},
		{"emoji zwj family", map[string]any{"query": "👨‍👩‍👧‍👦"}},
		{"flag", map[string]any{"query": "🇰🇷 posts"}},
		{"control characters", map[string]any{"query": "\t\r\n\x1b[31musers\x7f"}},
		{"bidi override", map[string]any{"query": "\u202eusers\u202c"}},
		{"zero width", map[string]any{"query": "us\u200bers"}},
		{"combining marks", map[string]any{"query": "u\u0301sers"}},
		{"kelvin and long s", map[string]any{"query": "\u212a\u017f"}},
		{"16 long words", map[string]any{"query": strings.TrimSpace(strings.Repeat("purchases ", 16))}},
		{"16 different words", map[string]any{"query": "aaa bbb ccc ddd eee fff ggg hhh iii jjj kkk lll mmm nnn ooo ppp"}},
		{"16 prefixes", map[string]any{"query": "use pos ite pur ord ema dis rol cre aut tit sta nam pri lin qua"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, "schema_search", tc.args)
			if res.IsError {
				msg := wantCode(t, res, store.InvalidArgument)
				checkMessage(t, msg)
			} else {
				out := success[SearchOutput](t, res)
				for _, h := range out.Hits {
					if !utf8.ValidString(h.Text) {
						t.Errorf("hit text is not valid UTF-8: %q", h.Text)
					}
				}
			}
			if got := searchTool(t, cs, map[string]any{"query": "purch"}); !cmp.Equal(got, normal) {
				t.Errorf("after it, purch = %v, want %v", hitNames(got.Hits), hitNames(normal.Hits))
			}
		})
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("the server logged errors:\n%s", logs.String())
	}

	// Query syntax is punctuation: these are the plain word "users".
	want := searchTool(t, cs, map[string]any{"query": "users"})
	for _, q := range []string{`"users"`, `users*`, `(users)`, `{users}`, `users:`, `^users`, `-users`, "users\x00", "USERS", "Users!"} {
		if got := searchTool(t, cs, map[string]any{"query": q}); !cmp.Equal(got, want) {
			t.Errorf("%q = %v, want the same as users: %v", q, hitNames(got.Hits), hitNames(want.Hits))
		}
	}
}

// The words of an identifier are the same however it is written; words of
// three letters or more match as prefixes, shorter ones only as words.
func TestSearchWords(t *testing.T) {
	cs := shopSession(t)
	want := searchTool(t, cs, map[string]any{"query": "display name"})
	if len(want.Hits) == 0 || want.Hits[0].Column != "display_name" {
		t.Fatalf("display name = %v, want users.display_name first", hitNames(want.Hits))
	}
	for _, q := range []string{"displayName", "display_name", "DisplayName", "DISPLAY_NAME", "name display", "display-name"} {
		if got := searchTool(t, cs, map[string]any{"query": q}); !cmp.Equal(got, want) {
			t.Errorf("%q = %v, want the same as \"display name\": %v", q, hitNames(got.Hits), hitNames(want.Hits))
		}
	}
	if got := searchTool(t, cs, map[string]any{"query": "pur"}); !hasTable(got.Hits, "purchases") {
		t.Errorf("pur = %v, want the purchases table (a 3-letter prefix)", hitNames(got.Hits))
	}
	if got := searchTool(t, cs, map[string]any{"query": "us"}); hasTable(got.Hits, "users") {
		t.Errorf("us = %v: a 2-letter word must not match as a prefix", hitNames(got.Hits))
	}
	// Every word must match.
	if got := searchTool(t, cs, map[string]any{"query": "users zebra"}); len(got.Hits) != 0 {
		t.Errorf("users zebra = %v, want nothing", hitNames(got.Hits))
	}
}

// bigDev is the target of storetest's releases.
var bigDev = store.Target{Project: "big", Environment: "dev"}

// syntheticSession serves snap (of project big) from a fresh index,
// optimized as the indexer leaves it.
func syntheticSession(tb testing.TB, snap *snapshot.Snapshot) *mcp.ClientSession {
	tb.Helper()
	st := openStore(tb)
	if err := st.PutRelease(context.Background(), snap, store.FileState{}, true, nil); err != nil {
		tb.Fatal(err)
	}
	if err := st.Optimize(context.Background()); err != nil {
		tb.Fatal(err)
	}
	srv := New(st, Options{Target: bigDev, Version: "test"})
	tb.Cleanup(srv.Shutdown)
	return connect(tb, srv)
}

// kindsOf lists the kinds of hits, deduplicated, in order.
func kindsOf(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		if !slices.Contains(out, h.Kind) {
			out = append(out, h.Kind)
		}
	}
	return out
}

// kinds and limit are honoured end to end, and "more" is in the JSON only
// when it is true.
func TestSearchKindsAndLimit(t *testing.T) {
	cs := shopSession(t)
	all := searchTool(t, cs, map[string]any{"query": "user"})
	if len(all.Hits) < 5 || all.More {
		t.Fatalf("user = %v (more %v), want several hits and no more", hitNames(all.Hits), all.More)
	}
	if got := kindsOf(all.Hits); len(got) != 3 {
		t.Fatalf("user has hits of kinds %v, want all three", got)
	}

	// kinds: the hits of the whole answer of those kinds, in the same order.
	for _, kinds := range [][]string{{"table"}, {"column"}, {"logic"}, {"table", "logic"}, {"logic", "column"},
		{"column", "table", "logic"}} {
		got := searchTool(t, cs, map[string]any{"query": "user", "kinds": kinds})
		want := slices.DeleteFunc(slices.Clone(all.Hits), func(h Hit) bool { return !slices.Contains(kinds, h.Kind) })
		if !cmp.Equal(got.Hits, want) || got.More {
			t.Errorf("kinds %v = %v (more %v)\nwant %v", kinds, hitNames(got.Hits), got.More, hitNames(want))
		}
	}

	// limit: the first hits of the whole answer; more only when some are
	// left out, and only then in the JSON.
	for limit := 1; limit <= len(all.Hits)+2; limit++ {
		res := call(t, cs, "schema_search", map[string]any{"query": "user", "limit": limit})
		got := success[SearchOutput](t, res)
		n := min(limit, len(all.Hits))
		if !cmp.Equal(got.Hits, all.Hits[:n]) {
			t.Errorf("limit %d = %v, want %v", limit, hitNames(got.Hits), hitNames(all.Hits[:n]))
		}
		wantMore := limit < len(all.Hits)
		m := raw(t, res)
		more, present := m["more"]
		switch {
		case wantMore && more != true:
			t.Errorf("limit %d of %d hits: more = %v (present %v), want true", limit, len(all.Hits), more, present)
		case !wantMore && present:
			t.Errorf("limit %d of %d hits: \"more\" is in the answer (%v); want it left out", limit, len(all.Hits), more)
		}
		if present != strings.Contains(text(t, res), `"more"`) {
			t.Errorf("structured and text disagree on more: %s", text(t, res))
		}
	}

	// kinds and limit together.
	got := searchTool(t, cs, map[string]any{"query": "user", "kinds": []string{"logic"}, "limit": 1})
	if len(got.Hits) != 1 || got.Hits[0].Kind != "logic" || !got.More {
		t.Errorf("user, logics, limit 1 = %v (more %v), want one logic and more", hitNames(got.Hits), got.More)
	}

	// The default limit is 20, on a release where more than 20 things match.
	syn := syntheticSession(t, storetest.Release(storetest.Size{Tables: 1000, Logics: 200}))
	for _, q := range []string{"id", "created", "tenant", "procur"} {
		res := call(t, syn, "schema_search", map[string]any{"query": q})
		out := success[SearchOutput](t, res)
		if len(out.Hits) != store.DefaultSearchLimit || !out.More || raw(t, res)["more"] != true {
			t.Errorf("%q without a limit: %d hits, more %v; want %d and more", q, len(out.Hits), out.More, store.DefaultSearchLimit)
		}
		for _, kinds := range [][]string{{"table"}, {"column"}, {"logic"}} {
			for _, limit := range []int{1, 7, 100} {
				out := searchTool(t, syn, map[string]any{"query": q, "kinds": kinds, "limit": limit})
				if len(out.Hits) > limit {
					t.Errorf("%q %v limit %d: %d hits", q, kinds, limit, len(out.Hits))
				}
				if k := kindsOf(out.Hits); len(k) > 1 || len(k) == 1 && k[0] != kinds[0] {
					t.Errorf("%q kinds %v: hits of kinds %v", q, kinds, k)
				}
			}
		}
	}
}

// identWords splits an identifier or text as the search documents it:
// runs of letters and digits, split again where a lower-case letter meets
// an upper-case one, lower-cased. (Enough for the ASCII and Hangul names
// of the fixtures.)
func identWords(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsNumber(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// matchesWord tells whether query word q matches word w: as a prefix when q
// has three bytes or more (or is not ASCII), else whole.
func matchesWord(q, w string) bool {
	if len(q) >= 3 || utf8.RuneCountInString(q) != len(q) {
		return strings.HasPrefix(w, q)
	}
	return q == w
}

// rank is where a hit stands in the documented order: names (tables, then
// logics, then columns), then params, then comments and descriptions, then
// SQL.
func rank(h Hit) int {
	switch {
	case h.Match == "name" && h.Kind == "table":
		return 0
	case h.Match == "name" && h.Kind == "logic":
		return 1
	case h.Match == "name":
		return 2
	case h.Match == "param":
		return 3
	case h.Match == "comment" || h.Match == "description":
		return 4
	}
	return 5
}

// checkHits checks hits against snap: every hit exists, every query word
// matches a word of the fields its match names, and hits come in rank
// order.
func checkHits(tb testing.TB, snap *snapshot.Snapshot, query string, hits []Hit) {
	tb.Helper()
	tables := map[[2]string]*snapshot.Table{}
	for i := range snap.Tables {
		t := &snap.Tables[i]
		tables[[2]string{t.Connection, t.Name}] = t
	}
	logics := map[string]*snapshot.Logic{}
	for i := range snap.Logics {
		logics[snap.Logics[i].Name] = &snap.Logics[i]
	}
	terms := identWords(query)
	for i, h := range hits {
		if i > 0 && rank(hits[i-1]) > rank(h) {
			tb.Errorf("%q: %s comes after %s: out of rank order", query, hitNames(hits[i:i+1]), hitNames(hits[i-1:i]))
		}
		var fields []string
		switch h.Kind {
		case "table", "column":
			t := tables[[2]string{h.Connection, h.Table}]
			if t == nil {
				tb.Errorf("%q: hit %+v names no table of the release", query, h)
				continue
			}
			fields = append(fields, t.Name)
			if h.Kind == "table" && h.Match == "comment" {
				fields = append(fields, t.Comment)
			}
			if h.Kind == "column" {
				j := slices.IndexFunc(t.Columns, func(c snapshot.Column) bool { return c.Name == h.Column })
				if j < 0 {
					tb.Errorf("%q: hit %+v names no column of the table", query, h)
					continue
				}
				fields = append(fields, h.Column)
				if h.Match == "comment" {
					fields = append(fields, t.Columns[j].Comment)
				}
			}
		case "logic":
			l := logics[h.Logic]
			if l == nil {
				tb.Errorf("%q: hit %+v names no logic of the release", query, h)
				continue
			}
			fields = append(fields, l.Name)
			if h.Match != "name" {
				for _, p := range l.Params {
					fields = append(fields, p.Name)
				}
			}
			if h.Match == "description" || h.Match == "sql" {
				fields = append(fields, l.Description)
			}
			if h.Match == "sql" {
				fields = append(fields, l.SQL)
			}
		default:
			tb.Errorf("%q: hit of unknown kind %+v", query, h)
			continue
		}
		words := identWords(strings.Join(fields, " "))
		for _, q := range terms {
			if !slices.ContainsFunc(words, func(w string) bool { return matchesWord(q, w) }) {
				tb.Errorf("%q: hit %s: %q matches no word of %q", query, hitNames([]Hit{h}), q, fields)
			}
		}
		if h.Match == "name" && h.Text != "" {
			tb.Errorf("%q: name hit %s has text %q", query, hitNames([]Hit{h}), h.Text)
		}
		if h.Match != "name" && !slices.ContainsFunc(identWords(h.Text), func(w string) bool {
			return slices.ContainsFunc(terms, func(q string) bool { return matchesWord(q, w) })
		}) {
			tb.Errorf("%q: %s hit %s has text %q, which shows no matching word", query, h.Match, hitNames([]Hit{h}), h.Text)
		}
		if n := utf8.RuneCountInString(h.Text); n > maxExcerpt {
			tb.Errorf("%q: hit %s text is %d runes long: %q", query, hitNames([]Hit{h}), n, h.Text)
		}
	}
}

// Every hit is real and matches every word where its match says, best
// first, on the fixture and on a synthetic release big enough to page.
func TestSearchHitsMatchEveryWord(t *testing.T) {
	shop := shopSnapshot(t)
	syn := storetest.Release(storetest.Size{Tables: 1000, Logics: 200})
	for _, tc := range []struct {
		name    string
		snap    *snapshot.Snapshot
		cs      *mcp.ClientSession
		queries []string
	}{
		{"shop", shop, shopSession(t), []string{"user", "id", "users email", "purch", "item", "created", "post",
			"status", "order lines", "users id", "blog", "admin", "select", "publish draft", "limit"}},
		{"synthetic", syn, syntheticSession(t, syn), []string{"procurement vendors archive", "id", "procur",
			"minor units", "고객", "tenant", "display name", "invoice lines", "sales orders", "email", "status",
			"get customers", "created by", "archive", "owner user", "admin console", "since", "line no", "표시"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, q := range tc.queries {
				for _, limit := range []int{20, 100} {
					out := searchTool(t, tc.cs, map[string]any{"query": q, "limit": limit})
					checkHits(t, tc.snap, q, out.Hits)
				}
			}
		})
	}
}

// invoiceSnapshot is shop with a release of its own: order_lines gone and
// an invoices table added.
func invoiceSnapshot(tb testing.TB, id string) *snapshot.Snapshot {
	tb.Helper()
	snap := shopSnapshot(tb)
	snap.Release.ID, snap.Release.Version = id, 43
	snap.Tables = slices.DeleteFunc(snap.Tables, func(t snapshot.Table) bool { return t.Name == "order_lines" })
	snap.Tables = append(snap.Tables, snapshot.Table{Name: "invoices", Connection: "main", Comment: "Bills sent to customers",
		Columns:    []snapshot.Column{{Name: "id", Type: "string"}, {Name: "amount_cents", Type: "integer"}},
		PrimaryKey: []string{"id"}})
	return snap
}

// Search answers from the release current at each call: a table only in
// the new release is found once it is current, one only in the old is gone.
func TestSearchFollowsTheCurrentRelease(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	cs := connect(t, srv)
	find := func(q string) []Hit {
		t.Helper()
		return searchTool(t, cs, map[string]any{"query": q}).Hits
	}
	if hits := find("invoices"); len(hits) != 0 {
		t.Fatalf("invoices before the change = %v", hitNames(hits))
	}
	if hits := find("order lines"); !hasTable(hits, "order_lines") {
		t.Fatalf("order lines before the change = %v", hitNames(hits))
	}

	// A new current release.
	putCurrent(t, st, invoiceSnapshot(t, "rel_43"))
	srv.CheckRelease(ctx)
	if hits := find("invoices"); !hasTable(hits, "invoices") {
		t.Errorf("invoices after the change = %v, want the invoices table", hitNames(hits))
	}
	if hits := find("bills customers"); !hasTable(hits, "invoices") {
		t.Errorf("bills customers after the change = %v, want invoices by its comment", hitNames(hits))
	}
	for _, q := range []string{"order lines", "order_lines", "quantity", "line"} {
		if hits := find(q); mentions(hits, "order_lines") {
			t.Errorf("%q after the change = %v: order_lines is not in the current release", q, hitNames(hits))
		}
	}

	// The same release re-indexed in place, with invoices renamed.
	renamed := invoiceSnapshot(t, "rel_43")
	renamed.Tables[len(renamed.Tables)-1].Name = "bills"
	putCurrent(t, st, renamed)
	srv.CheckRelease(ctx)
	if hits := find("invoices"); len(hits) != 0 {
		t.Errorf("invoices after the rename = %v, want nothing", hitNames(hits))
	}
	if hits := find("bills"); !hasTable(hits, "bills") {
		t.Errorf("bills after the rename = %v", hitNames(hits))
	}

	// Back to the old release (an offline rollback).
	if err := st.SetCurrent(ctx, "shop", "dev", "rel_42"); err != nil {
		t.Fatal(err)
	}
	srv.CheckRelease(ctx)
	if hits := find("order lines"); !hasTable(hits, "order_lines") {
		t.Errorf("order lines after the rollback = %v", hitNames(hits))
	}
	if hits := find("bills"); mentions(hits, "bills") {
		t.Errorf("bills after the rollback = %v", hitNames(hits))
	}

	// Gone, then back.
	if err := st.DeleteRelease(ctx, store.ReleaseKey{Project: "shop", ID: "rel_42"}); err != nil {
		t.Fatal(err)
	}
	srv.CheckRelease(ctx)
	wantCode(t, call(t, cs, "schema_search", map[string]any{"query": "order lines"}), store.NoRelease)
	if err := st.SetCurrent(ctx, "shop", "dev", "rel_43"); err != nil {
		t.Fatal(err)
	}
	srv.CheckRelease(ctx)
	if hits := find("bills"); !hasTable(hits, "bills") {
		t.Errorf("bills with rel_43 current again = %v", hitNames(hits))
	}
}

// The same, when another process (here: another Store on the same cache)
// imports the new release: the server's index connections see it at once.
func TestSearchSeesAnotherWritersRelease(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importSnapshot(t, dir, "rel_42", nil)
	c, err := indexer.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	srv := newServer(t, c.Store())
	cs := connect(t, srv)
	if hits := searchTool(t, cs, map[string]any{"query": "posts"}).Hits; !hasTable(hits, "posts") {
		t.Fatalf("posts = %v", hitNames(hits))
	}

	importSnapshot(t, dir, "rel_43", func(doc map[string]any) {
		for _, tb := range doc["tables"].([]any) {
			if tb := tb.(map[string]any); tb["name"] == "posts" {
				tb["name"] = "articles"
			}
		}
	})
	srv.CheckRelease(ctx)
	if hits := searchTool(t, cs, map[string]any{"query": "articles"}).Hits; !hasTable(hits, "articles") {
		t.Errorf("articles after another process imported rel_43 = %v", hitNames(hits))
	}
	if hits := searchTool(t, cs, map[string]any{"query": "posts", "kinds": []string{"table"}}).Hits; hasTable(hits, "posts") {
		t.Errorf("posts after another process imported rel_43 = %v", hitNames(hits))
	}
}

// importSnapshot imports the shop fixture as release id, edited by edit,
// into the cache in dir, as `hubsnap snapshot import` does.
func importSnapshot(tb testing.TB, dir, id string, edit func(map[string]any)) {
	tb.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(readFixture(tb)), &doc); err != nil {
		tb.Fatal(err)
	}
	doc["release"].(map[string]any)["id"] = id
	if edit != nil {
		edit(doc)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		tb.Fatal(err)
	}
	file := filepath.Join(tb.TempDir(), id+".json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	if _, err := indexer.Import(context.Background(), dir, file, nil, nil); err != nil {
		tb.Fatalf("import %s: %v", id, err)
	}
}

// Searches from 8 goroutines over two sessions while the current release
// is replaced, re-indexed and removed: every answer is one a release
// gives alone (never half of one) or NO_RELEASE, never INTERNAL or a
// protocol error.
func TestSearchConcurrentWithReleaseChanges(t *testing.T) {
	ctx := context.Background()
	queries := []map[string]any{
		{"query": "invoices"},
		{"query": "order lines"},
		{"query": "user"},
		{"query": "id", "limit": 5},
		{"query": "purch", "kinds": []string{"table", "logic"}},
		{"query": "bills customers"},
	}
	releases := []*snapshot.Snapshot{shopSnapshot(t), invoiceSnapshot(t, "rel_43")}

	// The answers each release gives alone.
	valid := make([]map[string]bool, len(queries))
	for i := range valid {
		valid[i] = map[string]bool{}
	}
	for _, snap := range releases {
		cs := sessionWith(t, snap)
		for i, q := range queries {
			valid[i][text(t, call(t, cs, "schema_search", q))] = true
		}
	}

	st := openStore(t)
	putCurrent(t, st, releases[0])
	srv := newServer(t, st)
	sessions := []*mcp.ClientSession{connect(t, srv), connect(t, srv)}

	const workers, calls, changes = 8, 50, 12
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	changed := make(chan struct{}) // closed after the last change
	changer := make(chan error, 1)
	go func() {
		defer close(changed)
		// Replace the release again and again while the searches run.
		for i := range changes {
			var err error
			switch i % 4 {
			case 0:
				err = st.PutRelease(ctx, releases[1], store.FileState{}, true, nil)
			case 1:
				err = st.PutRelease(ctx, releases[0], store.FileState{}, true, nil) // rel_42 again, re-indexed
			case 2:
				err = st.DeleteRelease(ctx, store.ReleaseKey{Project: "shop", ID: "rel_42"}) // none current
			case 3:
				err = st.SetCurrent(ctx, "shop", "dev", "rel_43")
			}
			if err != nil {
				changer <- fmt.Errorf("change %d: %w", i, err)
				return
			}
			srv.CheckRelease(ctx)
		}
		changer <- nil
	}()
	done := func() bool {
		select {
		case <-changed:
			return true
		default:
			return false
		}
	}
	for w := range workers {
		wg.Go(func() {
			cs := sessions[w%len(sessions)]
			// At least calls searches each, and on until the changes are over.
			for k := 0; k < calls || !done(); k++ {
				i := (w + k) % len(queries)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "schema_search", Arguments: queries[i]})
				if err != nil {
					t.Errorf("worker %d call %d: protocol error: %v", w, k, err)
					return
				}
				// No helper that calls t.Fatal: this is not the test's goroutine.
				var tc *mcp.TextContent
				if len(res.Content) == 1 {
					tc, _ = res.Content[0].(*mcp.TextContent)
				}
				if tc == nil {
					t.Errorf("worker %d call %d: content %s", w, k, short(res.Content))
					return
				}
				got := tc.Text
				var outcome string
				if res.IsError {
					var doc errorDoc
					if err := json.Unmarshal([]byte(got), &doc); err != nil || doc.Error.Code != string(store.NoRelease) {
						t.Errorf("worker %d call %d %s: %s", w, k, short(queries[i]), got)
					}
					outcome = doc.Error.Code
				} else {
					if !valid[i][got] {
						t.Errorf("worker %d call %d %s = %s\nwhich no release gives", w, k, short(queries[i]), got)
					}
					outcome = "ok"
				}
				mu.Lock()
				counts[outcome]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := wait(t, changer, "the release changes to end"); err != nil {
		t.Fatalf("changing the release: %v", err)
	}
	t.Logf("outcomes: %v", counts)
	if counts["ok"] == 0 {
		t.Errorf("no search succeeded: %v", counts)
	}
	// And afterwards a search answers normally.
	if err := st.PutRelease(ctx, releases[1], store.FileState{}, true, nil); err != nil {
		t.Fatal(err)
	}
	if hits := searchTool(t, sessions[0], map[string]any{"query": "invoices"}).Hits; !hasTable(hits, "invoices") {
		t.Errorf("invoices after the storm = %v", hitNames(hits))
	}
}

// maxExcerpt bounds the length of a hit's text: store keeps excerpts to
// "about" a fixed number of characters (80 or 100), cut at spaces.
const maxExcerpt = 120

// A long comment, description or SQL is shown as an excerpt around the
// match: valid UTF-8, about 100 characters, marked with … where cut.
func TestSearchExcerpts(t *testing.T) {
	long := strings.Repeat("lorem ipsum dolor sit amet ", 10) + "the zebra crossing " + strings.Repeat("consectetur adipiscing elit ", 10)
	korean := strings.Repeat("가나다라마바사", 30) + " 얼룩말 " + strings.Repeat("아자차카타파하", 30)
	nospace := strings.Repeat("x", 200) + "_zebra_" + strings.Repeat("y", 200)
	snap := emptySnapshot()
	snap.Tables = []snapshot.Table{
		{Name: "crossings", Connection: "main", Comment: long, Columns: []snapshot.Column{{Name: "id", Type: "string"}}},
		{Name: "animals", Connection: "main", Comment: "short", Columns: []snapshot.Column{
			{Name: "kind", Type: "string", Comment: korean}, {Name: "tag", Type: "string", Comment: nospace}}},
	}
	snap.Logics = []snapshot.Logic{{Name: "find_stripes", Description: "Find\n\tthings   with " + long,
		SQL: "SELECT 1 -- " + long}}
	cs := sessionWith(t, snap)
	for _, tc := range []struct {
		query, want string // want: the hit, as hitNames gives it
		cut         bool
	}{
		{"zebra crossing", "table:main.crossings/comment", true},
		{"얼룩말", "column:main.animals.kind/comment", true},
		{"things", "logic:find_stripes/description", true},
	} {
		out := searchTool(t, cs, map[string]any{"query": tc.query})
		i := slices.Index(hitNames(out.Hits), tc.want)
		if i < 0 {
			t.Errorf("%q = %v, want %s", tc.query, hitNames(out.Hits), tc.want)
			continue
		}
		h := out.Hits[i]
		if !utf8.ValidString(h.Text) || strings.ContainsAny(h.Text, "\n\t") || strings.Contains(h.Text, "  ") {
			t.Errorf("%q: text %q is not clean one-line UTF-8", tc.query, h.Text)
		}
		if n := utf8.RuneCountInString(h.Text); n > maxExcerpt {
			t.Errorf("%q: text is %d characters: %q", tc.query, n, h.Text)
		}
		if !strings.Contains(strings.ToLower(h.Text), identWords(tc.query)[0]) {
			t.Errorf("%q: text %q does not show the match", tc.query, h.Text)
		}
		if tc.cut && !strings.HasSuffix(h.Text, "…") {
			t.Errorf("%q: text %q is cut without a … at its end", tc.query, h.Text)
		}
	}
	// A word inside a long run without spaces: still valid UTF-8 and short.
	for _, h := range searchTool(t, cs, map[string]any{"query": "zebra"}).Hits {
		if !utf8.ValidString(h.Text) || utf8.RuneCountInString(h.Text) > maxExcerpt {
			t.Errorf("zebra: hit %s text %q", hitNames([]Hit{h}), h.Text)
		}
	}
}

// kinds narrows what is searched, not only what is shown: a table found by
// its comment is found with kinds ["table"] however many tables match the
// word only in their columns, and a column with kinds ["column"] however
// many tables match it only by their name. ("more" may still be set: the
// other matches were not all examined.)
func TestSearchKindsFindHitsPastOtherMatches(t *testing.T) {
	snap := emptySnapshot()
	for i := range 200 {
		snap.Tables = append(snap.Tables, snapshot.Table{Name: fmt.Sprintf("orders_%03d", i), Connection: "main",
			Columns: []snapshot.Column{{Name: "id", Type: "string"}, {Name: "status", Type: "string"}}})
	}
	snap.Tables = append(snap.Tables,
		snapshot.Table{Name: "audit_log", Connection: "main", Comment: "Status changes",
			Columns: []snapshot.Column{{Name: "at", Type: "timestamp"}}},
		snapshot.Table{Name: "stats", Connection: "main",
			Columns: []snapshot.Column{{Name: "orders_count", Type: "integer"}}})
	cs := sessionWith(t, snap)
	for _, tc := range []struct {
		query string
		kinds []string
		want  string
	}{
		{"status", []string{"table"}, "table:main.audit_log/comment"},
		{"orders", []string{"column"}, "column:main.stats.orders_count/name"},
	} {
		for _, limit := range []int{20, store.MaxSearchLimit} {
			res := call(t, cs, "schema_search", map[string]any{"query": tc.query, "kinds": tc.kinds, "limit": limit})
			out := success[SearchOutput](t, res)
			if got := hitNames(out.Hits); !slices.Equal(got, []string{tc.want}) {
				t.Errorf("%q kinds %v limit %d = %v; want [%s]\ntext: %s", tc.query, tc.kinds, limit, got, tc.want, text(t, res))
			} else if out.More {
				t.Logf("%q kinds %v limit %d: more is set with its only hit: %s", tc.query, tc.kinds, limit, text(t, res))
			}
		}
	}
}

// An optional argument that is null is taken as left out, not refused with
// a validator's wording.
func TestNullOptionalArguments(t *testing.T) {
	cs := shopSession(t)
	want := text(t, call(t, cs, "schema_search", map[string]any{"query": "user"}))
	for _, args := range []json.RawMessage{
		json.RawMessage(`{"query":"user","kinds":null}`),
		json.RawMessage(`{"query":"user","limit":null}`),
		json.RawMessage(`{"query":"user","kinds":null,"limit":null}`),
	} {
		if got := text(t, call(t, cs, "schema_search", args)); got != want {
			t.Errorf("%s: %s, want the answer without them: %s", args, got, want)
		}
	}
	for tool, args := range map[string]json.RawMessage{
		"schema_list_tables": json.RawMessage(`{"connection":null,"cursor":null,"limit":null}`),
		"logic_list":         json.RawMessage(`{"cursor":null,"limit":null}`),
		"schema_get_table":   json.RawMessage(`{"table":"posts","connection":null,"cursor":null}`),
	} {
		if res := call(t, cs, tool, args); res.IsError {
			t.Errorf("%s %s: %s", tool, args, text(t, res))
		}
	}
}

// hubsnap declares no prompts: their methods are not found.
func TestNoPrompts(t *testing.T) {
	cs := shopSession(t)
	_, err := cs.ListPrompts(context.Background(), nil)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("prompts/list: %v, want -32601", err)
	}
}
