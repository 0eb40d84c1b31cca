package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/store"
)

// hostileCalls are arguments a confused or malicious client may send. Each
// gets a clear tool error: INVALID_ARGUMENT for a request that can never
// succeed as made, NOT_FOUND for a well-formed name that is not there.
// Names that look like SQL or LIKE patterns must be taken literally.
var hostileCalls = []struct {
	name string
	tool string
	args any
	want store.Code
}{
	// SQL and LIKE metacharacters are names like any other.
	{"sql injection", "schema_get_table", map[string]any{"table": "users' OR '1'='1"}, store.NotFound},
	{"sql injection qualified", "schema_get_table", map[string]any{"table": "main.users' --"}, store.NotFound},
	{"sql comment", "schema_get_table", map[string]any{"table": "posts; DROP TABLE tables; --"}, store.NotFound},
	{"like percent", "schema_get_table", map[string]any{"table": "%"}, store.NotFound},
	{"like underscore", "schema_get_table", map[string]any{"table": "_sers"}, store.NotFound},
	{"like prefix", "schema_get_table", map[string]any{"table": "u%"}, store.NotFound},
	{"like connection", "schema_get_table", map[string]any{"table": "posts", "connection": "%"}, store.NotFound},
	{"like connection underscore", "schema_get_table", map[string]any{"table": "posts", "connection": "_ain"}, store.NotFound},
	{"like qualified", "schema_get_table", map[string]any{"table": "%.%"}, store.NotFound},
	{"list like connection", "schema_list_tables", map[string]any{"connection": "%"}, store.NotFound},
	{"list unknown connection", "schema_list_tables", map[string]any{"connection": "warehouse"}, store.NotFound},
	{"logic like underscore", "logic_get", map[string]any{"name": "_urchase_item"}, store.NotFound},
	{"logic glob", "logic_get", map[string]any{"name": "admin/*"}, store.InvalidArgument},
	{"logic like percent", "logic_get", map[string]any{"name": "%"}, store.InvalidArgument},
	{"logic sql injection", "logic_get", map[string]any{"name": "x' OR '1'='1"}, store.InvalidArgument},

	// Huge and odd names.
	{"1 MiB table", "schema_get_table", map[string]any{"table": strings.Repeat("t", 1<<20)}, store.InvalidArgument},
	{"1 MiB connection", "schema_get_table", map[string]any{"table": "posts", "connection": strings.Repeat("c", 1<<20)}, store.InvalidArgument},
	{"1 MiB list connection", "schema_list_tables", map[string]any{"connection": strings.Repeat("c", 1<<20)}, store.InvalidArgument},
	{"1 MiB logic", "logic_get", map[string]any{"name": strings.Repeat("l", 1<<20)}, store.InvalidArgument},
	{"NUL in table", "schema_get_table", map[string]any{"table": "posts\x00"}, store.InvalidArgument},
	{"empty table", "schema_get_table", map[string]any{"table": ""}, store.InvalidArgument},
	{"empty logic", "logic_get", map[string]any{"name": ""}, store.InvalidArgument},

	// Paths.
	{"logic parent first", "logic_get", map[string]any{"name": "../admin/users"}, store.InvalidArgument},
	{"logic parent inside", "logic_get", map[string]any{"name": "admin/../users"}, store.InvalidArgument},
	{"logic absolute", "logic_get", map[string]any{"name": "/etc/passwd"}, store.InvalidArgument},
	{"logic prefix then parent", "logic_get", map[string]any{"name": "logics/../admin/users"}, store.InvalidArgument},
	{"logic trailing slash", "logic_get", map[string]any{"name": "admin/users/"}, store.InvalidArgument},
	{"logic double slash", "logic_get", map[string]any{"name": "admin//users"}, store.InvalidArgument},
	{"logic backslash", "logic_get", map[string]any{"name": `admin\users`}, store.InvalidArgument},
	{"table path", "schema_get_table", map[string]any{"table": "../../etc/passwd"}, store.NotFound},

	// Wrong types.
	{"table number", "schema_get_table", map[string]any{"table": 7}, store.InvalidArgument},
	{"table null", "schema_get_table", map[string]any{"table": nil}, store.InvalidArgument},
	{"table array", "schema_get_table", map[string]any{"table": []string{"posts"}}, store.InvalidArgument},
	{"table object", "schema_get_table", map[string]any{"table": map[string]any{"name": "posts"}}, store.InvalidArgument},
	{"connection bool", "schema_list_tables", map[string]any{"connection": false}, store.InvalidArgument},
	{"name bool", "logic_get", map[string]any{"name": true}, store.InvalidArgument},

	// Missing required fields.
	{"get table no table", "schema_get_table", map[string]any{}, store.InvalidArgument},
	{"get table connection only", "schema_get_table", map[string]any{"connection": "main"}, store.InvalidArgument},
	{"get logic no name", "logic_get", map[string]any{}, store.InvalidArgument},

	// Unknown extra fields.
	{"extra on get table", "schema_get_table", map[string]any{"table": "posts", "evil": 1}, store.InvalidArgument},
	{"extra on list tables", "schema_list_tables", map[string]any{"evil": 1}, store.InvalidArgument},
	{"extra on logic list", "logic_list", map[string]any{"evil": 1}, store.InvalidArgument},
	{"extra on logic get", "logic_get", map[string]any{"name": "purchase_item", "sql": "DROP TABLE x"}, store.InvalidArgument},
	{"extra on release info", "release_info", map[string]any{"project": "other"}, store.InvalidArgument},

	// Null and non-object arguments.
	{"null for get table", "schema_get_table", json.RawMessage(`null`), store.InvalidArgument},
	{"null for get logic", "logic_get", json.RawMessage(`null`), store.InvalidArgument},
	{"array arguments", "schema_get_table", json.RawMessage(`["posts"]`), store.InvalidArgument},
	{"string arguments", "schema_get_table", json.RawMessage(`"posts"`), store.InvalidArgument},
	{"number arguments", "logic_list", json.RawMessage(`7`), store.InvalidArgument},
}

func TestHostileArguments(t *testing.T) {
	snap := shopSnapshot(t)
	st := openStore(t)
	putCurrent(t, st, snap)
	cs := connect(t, newServer(t, st))
	before, err := st.Releases(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}

	for _, h := range hostileCalls {
		t.Run(h.name, func(t *testing.T) {
			res := call(t, cs, h.tool, h.args)
			msg := wantCode(t, res, h.want)
			if len(msg) > 2000 {
				t.Errorf("message is %d bytes long; it should not echo a huge argument: %.200s...", len(msg), msg)
			}
			if h.want == store.NotFound {
				// It names nothing that was not asked for.
				all, _ := json.Marshal(res)
				asked := strings.ToLower(short(h.args))
				for _, name := range append(shopTableNames, shopLogicNames...) {
					if !strings.Contains(asked, name) && strings.Contains(strings.ToLower(string(all)), name) {
						t.Errorf("NOT_FOUND answer names %q: %s", name, all)
					}
				}
			}
		})
	}

	// The index is intact and unchanged.
	got := success[ListTablesOutput](t, call(t, cs, "schema_list_tables", map[string]any{}))
	if len(got.Tables) != len(snap.Tables) {
		t.Errorf("after the hostile calls schema_list_tables has %d tables, want %d", len(got.Tables), len(snap.Tables))
	}
	if got := success[ListLogicsOutput](t, call(t, cs, "logic_list", map[string]any{})); len(got.Logics) != len(snap.Logics) {
		t.Errorf("after the hostile calls logic_list has %d logics, want %d", len(got.Logics), len(snap.Logics))
	}
	after, err := st.Releases(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) || after[0] != before[0] {
		t.Errorf("releases changed: before %+v, after %+v", before, after)
	}
}

// Null arguments to a tool that needs none are the same as no arguments
// (or, at worst, INVALID_ARGUMENT); never a protocol error.
func TestNullArgumentsForToolsWithoutRequiredFields(t *testing.T) {
	cs := shopSession(t)
	for _, tool := range []string{"schema_list_tables", "logic_list", "release_info"} {
		res := call(t, cs, tool, json.RawMessage(`null`))
		if res.IsError {
			wantCode(t, res, store.InvalidArgument)
			continue
		}
		plain := call(t, cs, tool, map[string]any{})
		if text(t, res) != text(t, plain) {
			t.Errorf("%s(null) = %s, want the answer to {}: %s", tool, text(t, res), text(t, plain))
		}
	}
}

// An unknown tool is a JSON-RPC error, -32602 (docs/tools.md).
func TestUnknownToolIsInvalidParams(t *testing.T) {
	cs := shopSession(t)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "schema_drop_table", Arguments: map[string]any{}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("CallTool(unknown) error = %v (%T), want a *jsonrpc.Error", err, err)
	}
	if werr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("code = %d, want %d", werr.Code, jsonrpc.CodeInvalidParams)
	}
	if strings.Contains(werr.Message, "schema_list_tables") {
		t.Errorf("the error lists other tools: %s", werr.Message)
	}
}
