package mcpserver

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
)

// The logic tools (logics.go): what each answers and how each fails, one
// test each, against the shop fixture.

// shopLogicNames are the fixture's logic names, sorted.
var shopLogicNames = []string{"admin/users", "items/search", "posts/publish", "purchase_item"}

func TestLogicListReturnsEveryLogicName(t *testing.T) {
	cs := shopSession(t)
	res := call(t, cs, "logic_list", map[string]any{})
	got := success[ListLogicsOutput](t, res)
	if diff := cmp.Diff(ListLogicsOutput{Logics: shopLogicNames, Total: len(shopLogicNames)}, got); diff != "" {
		t.Errorf("logic_list (-want +got):\n%s", diff)
	}
	if k := keys(raw(t, res)); !slices.Equal(k, []string{"logics", "total"}) {
		t.Errorf("top-level keys = %v, want [logics total]", k)
	}
}

func TestLogicGetReturnsSQLParamsAndAuth(t *testing.T) {
	cs := shopSession(t)
	for _, l := range shopSnapshot(t).Logics {
		t.Run(l.Name, func(t *testing.T) {
			res := call(t, cs, "logic_get", map[string]any{"name": l.Name})
			doc := raw(t, res)
			for _, k := range []string{"name", "sql", "params", "auth"} {
				if _, ok := doc[k]; !ok {
					t.Errorf("answer lacks %q: %v", k, keys(doc))
				}
			}
			want := answer.Logic{Name: l.Name, Description: l.Description, SQL: l.SQL, Params: []answer.Param{},
				Auth: answer.Auth{Required: l.Auth.Required, Roles: l.Auth.Roles}}
			for _, p := range l.Params {
				want.Params = append(want.Params, answer.Param{Name: p.Name, Type: p.Type, Required: p.Required})
			}
			if want.Auth.Roles == nil {
				want.Auth.Roles = []string{}
			}
			got := success[answer.Logic](t, res)
			// The analysis (SPEC §11) is added to MCP-005's shape: it is
			// checked whole by the contract (contract_test.go).
			if got.Analysis == nil || got.Analysis.Statement == "" {
				t.Errorf("logic_get %s: no analysis", l.Name)
			}
			got.Analysis = nil
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("logic_get (-want +got):\n%s", diff)
			}
		})
	}

	// The MCP-005 example, exactly.
	got := success[answer.Logic](t, call(t, cs, "logic_get", map[string]any{"name": "purchase_item"}))
	want := answer.Logic{Name: "purchase_item", Description: "Buy one item",
		SQL:    "INSERT INTO purchases (user_id, item_id) VALUES (:user_id, :item_id) RETURNING id",
		Params: []answer.Param{{Name: "user_id", Type: "string", Required: true}, {Name: "item_id", Type: "string", Required: true}},
		Auth:   answer.Auth{Required: true, Roles: []string{"authenticated"}},
		// SPEC §11's example; the fixture's purchases.id and created_at
		// are NOT NULL without a default, so the INSERT misses them.
		Analysis: &answer.LogicAnalysis{Statement: "insert",
			Tables: []snapshot.TableAccess{{Table: "purchases", Connection: "main", Access: "write"}},
			Result: []snapshot.ResultColumn{{Name: "id", Type: "string", Nullable: false,
				Source: &snapshot.ColumnSource{Table: "purchases", Column: "id"}}},
			Bindings: []snapshot.Binding{{Param: "user_id", Table: "purchases", Column: "user_id"},
				{Param: "item_id", Table: "purchases", Column: "item_id"}},
			Problems: []snapshot.Problem{
				{Code: snapshot.CodeMissingColumn, Message: `INSERT leaves out column "id", which is NOT NULL and has no default`, Position: 13},
				{Code: snapshot.CodeMissingColumn, Message: `INSERT leaves out column "created_at", which is NOT NULL and has no default`, Position: 13},
			}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("purchase_item (-want +got):\n%s", diff)
	}
}

func TestLogicGetParamsHaveNameTypeRequired(t *testing.T) {
	cs := shopSession(t)
	for _, name := range shopLogicNames {
		t.Run(name, func(t *testing.T) {
			doc := raw(t, call(t, cs, "logic_get", map[string]any{"name": name}))
			params, ok := doc["params"].([]any)
			if !ok {
				t.Fatalf("params = %#v, want an array (empty when none)", doc["params"])
			}
			for i, p := range params {
				m, _ := p.(map[string]any)
				if k := keys(m); !slices.Equal(k, []string{"name", "required", "type"}) {
					t.Errorf("params[%d] keys = %v, want [name required type]", i, k)
				}
				if _, ok := m["required"].(bool); !ok {
					t.Errorf("params[%d].required = %#v, want a boolean", i, m["required"])
				}
			}
		})
	}
	// items/search has an optional parameter: required is false, not absent.
	got := success[answer.Logic](t, call(t, cs, "logic_get", map[string]any{"name": "items/search"}))
	want := []answer.Param{{Name: "q", Type: "string", Required: true}, {Name: "limit", Type: "integer", Required: false}}
	if diff := cmp.Diff(want, got.Params); diff != "" {
		t.Errorf("items/search params (-want +got):\n%s", diff)
	}
	// admin/users has none: "params": [].
	if got := text(t, call(t, cs, "logic_get", map[string]any{"name": "admin/users"})); !strings.Contains(got, `"params":[]`) {
		t.Errorf("admin/users text lacks \"params\":[]: %s", got)
	}
}

func TestLogicGetAuthHasRequiredAndRoles(t *testing.T) {
	cs := shopSession(t)
	for _, tc := range []struct {
		name string
		want answer.Auth
	}{
		{"purchase_item", answer.Auth{Required: true, Roles: []string{"authenticated"}}},
		{"admin/users", answer.Auth{Required: true, Roles: []string{"admin"}}},
		{"items/search", answer.Auth{Required: false, Roles: []string{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, "logic_get", map[string]any{"name": tc.name})
			auth, _ := raw(t, res)["auth"].(map[string]any)
			if k := keys(auth); !slices.Equal(k, []string{"required", "roles"}) {
				t.Errorf("auth keys = %v, want [required roles] (both always present)", k)
			}
			if diff := cmp.Diff(tc.want, success[answer.Logic](t, res).Auth); diff != "" {
				t.Errorf("auth (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLogicGetUnknownNameIsNotFound(t *testing.T) {
	cs := shopSession(t)
	for _, name := range []string{"refund_item", "admin/people", "logics/refund_item", "admin", "purchase_item/x", "Purchase_item"} {
		t.Run(name, func(t *testing.T) {
			res := call(t, cs, "logic_get", map[string]any{"name": name})
			msg := wantCode(t, res, store.NotFound)
			asked := strings.TrimPrefix(name, "logics/")
			if !strings.Contains(msg, asked) {
				t.Errorf("message %q does not name %q", msg, asked)
			}
			// It names no other logic.
			all, _ := json.Marshal(res)
			for _, other := range shopLogicNames {
				if !strings.Contains(name, other) && strings.Contains(string(all), other) {
					t.Errorf("answer names logic %q: %s", other, all)
				}
			}
		})
	}
}

func TestLogicGetAcceptsLogicsPrefix(t *testing.T) {
	cs := shopSession(t)
	plain := text(t, call(t, cs, "logic_get", map[string]any{"name": "admin/users"}))
	prefixed := text(t, call(t, cs, "logic_get", map[string]any{"name": "logics/admin/users"}))
	if plain != prefixed {
		t.Errorf("logics/admin/users answers\n%s\nwant the same as admin/users:\n%s", prefixed, plain)
	}
}

// Failure mode: a release with no logics lists none; it is not an error.
func TestEmptyReleaseListsNoLogics(t *testing.T) {
	cs := sessionWith(t, emptySnapshot())
	res := call(t, cs, "logic_list", map[string]any{})
	if res.IsError {
		t.Fatalf("isError: %s", text(t, res))
	}
	if got, want := text(t, res), `{"logics":[],"total":0}`; got != want {
		t.Errorf("text = %s, want %s", got, want)
	}
	if got := success[map[string]any](t, res); !cmp.Equal(got, map[string]any{"logics": []any{}, "total": 0.0}) {
		t.Errorf("structuredContent = %v, want {\"logics\":[],\"total\":0}", got)
	}
	wantCode(t, call(t, cs, "logic_get", map[string]any{"name": "purchase_item"}), store.NotFound)
}

// A release with tables but no logics, and one with logics but no tables:
// each list is empty on its own.
func TestLogicsWithoutTablesAndTablesWithoutLogics(t *testing.T) {
	noLogics := shopSnapshot(t)
	noLogics.Logics = nil
	cs := sessionWith(t, noLogics)
	if got := text(t, call(t, cs, "logic_list", map[string]any{})); got != `{"logics":[],"total":0}` {
		t.Errorf("tables only: logic_list = %s", got)
	}

	noTables := shopSnapshot(t)
	noTables.Tables = nil
	cs = sessionWith(t, noTables)
	if got := text(t, call(t, cs, "schema_list_tables", map[string]any{})); got != `{"tables":[],"total":0}` {
		t.Errorf("logics only: schema_list_tables = %s", got)
	}
	if got := success[ListLogicsOutput](t, call(t, cs, "logic_list", map[string]any{})); len(got.Logics) != 4 {
		t.Errorf("logics only: logic_list = %v", got.Logics)
	}
}
