package transport

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// usedBy names logics: a token with table:read but not logic:read gets
// schema_get_table (and its resource) without it, as schema_diff leaves
// out logics; one with both gets it whole.
func TestHTTPUsedByFollowsScopes(t *testing.T) {
	env := startHTTP(t, HTTPOptions{}, tokenSpec{"tables", []string{"table:read"}},
		tokenSpec{"both", []string{"table:read", "logic:read"}})
	tables := env.mustConnect(t, env.secrets["tables"])
	both := env.mustConnect(t, env.secrets["both"])
	args := map[string]any{"table": "purchases"}
	whole := toolText(call(t, both, "schema_get_table", args))
	if !strings.Contains(whole, `"usedBy":[{"logic":"purchase_item","access":"write"}]`) {
		t.Fatalf("table:read + logic:read: no usedBy in %s", whole)
	}
	got := toolText(call(t, tables, "schema_get_table", args))
	if want := strings.Replace(whole, `,"usedBy":[{"logic":"purchase_item","access":"write"}]`, "", 1); got != want {
		t.Errorf("table:read only:\ngot  %s\nwant %s", got, want)
	}
	res, err := tables.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hubsnap://tables/main/purchases"})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Contents[0].Text; strings.Contains(text, "usedBy") {
		t.Errorf("table resource with table:read only: %s", text)
	}
}
