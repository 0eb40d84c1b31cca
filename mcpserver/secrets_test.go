package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// plantedSecrets are strings shop.json holds only in the fields that must
// never be kept: connection URLs and logic secrets.
var plantedSecrets = []string{
	"PLANTED_CONN_PASSWORD",
	"PLANTED_ANALYTICS_PASSWORD",
	"sk_live_PLANTED_PAYMENT_KEY",
	"PLANTED",
	"PAYMENT_API_KEY",
	"postgres://",
	"clickhouse://",
	"db.internal",
	"secrets",
}

// No answer of any tool, nor the tool list, holds a connection URL, a
// password or a logic secret of the snapshot.
func TestNoToolAnswerHoldsASecret(t *testing.T) {
	snap := shopSnapshot(t)
	cs := sessionWith(t, snap)

	var answers []any
	answers = append(answers, call(t, cs, "schema_list_tables", map[string]any{}))
	for _, conn := range []string{"main", "analytics"} {
		answers = append(answers, call(t, cs, "schema_list_tables", map[string]any{"connection": conn}))
	}
	for _, tbl := range snap.Tables {
		answers = append(answers, call(t, cs, "schema_get_table", map[string]any{"table": qualified(tbl)}))
	}
	answers = append(answers, call(t, cs, "schema_get_table", map[string]any{"table": "users"})) // AMBIGUOUS
	answers = append(answers, call(t, cs, "logic_list", map[string]any{}))
	for _, l := range snap.Logics {
		answers = append(answers, call(t, cs, "logic_get", map[string]any{"name": l.Name}))
	}
	answers = append(answers, call(t, cs, "release_info", map[string]any{}))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	answers = append(answers, tools, cs.InitializeResult())

	if n := len(snap.Tables) + len(snap.Logics) + 8; len(answers) != n {
		t.Fatalf("made %d calls, want %d", len(answers), n)
	}
	for _, a := range answers {
		if res, ok := a.(*mcp.CallToolResult); ok && res.IsError && !strings.Contains(text(t, res), "AMBIGUOUS") {
			t.Errorf("unexpected error: %s", text(t, res))
		}
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range plantedSecrets {
			if strings.Contains(string(b), s) {
				t.Errorf("an answer holds %q: %s", s, b)
			}
		}
	}
}

// The decoder is what drops the secrets: check the fixture really holds
// them, so that the test above tests something.
func TestFixtureHoldsThePlantedSecrets(t *testing.T) {
	data := readFixture(t)
	for _, s := range plantedSecrets[:3] {
		if !strings.Contains(data, s) {
			t.Errorf("shop.json lacks the planted %q", s)
		}
	}
}
