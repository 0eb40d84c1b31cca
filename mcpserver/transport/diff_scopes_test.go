package transport

import (
	"context"
	"testing"

	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
)

// schema_diff shows only what the token may read: tables with table:read,
// logics with logic:read; release:read alone compares nothing but says
// which releases.
func TestDiffScopes(t *testing.T) {
	env := startHTTP(t, HTTPOptions{},
		tokenSpec{"release", []string{"release:read"}},
		tokenSpec{"release-tables", []string{"release:read", "table:read"}},
		tokenSpec{"release-logics", []string{"release:read", "logic:*"}},
		tokenSpec{"all", []string{"*"}},
		tokenSpec{"tables", []string{"table:read"}})
	older := shopSnapshot(t)
	older.Release.ID, older.Release.Version = "rel_41", 41
	older.Tables = older.Tables[1:]
	older.Logics = older.Logics[1:]
	if err := env.st.PutRelease(context.Background(), older, store.FileState{}, false, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		token          string
		tables, logics bool
	}{
		{"release", false, false},
		{"release-tables", true, false},
		{"release-logics", false, true},
		{"all", true, true},
	} {
		cs := env.mustConnect(t, env.secrets[tc.token])
		got := success[answer.DiffOutput](t, call(t, cs, "schema_diff", map[string]any{}))
		if (got.Tables != nil) != tc.tables || (got.Logics != nil) != tc.logics {
			t.Errorf("%s: tables %v, logics %v; want %v, %v", tc.token, got.Tables != nil, got.Logics != nil, tc.tables, tc.logics)
		}
		if tc.tables && len(got.Tables.Added) != 1 || tc.logics && len(got.Logics.Added) != 1 {
			t.Errorf("%s: %+v", tc.token, got)
		}
		if got.From.ID != "rel_41" || got.To.ID != "rel_42" {
			t.Errorf("%s: from %s to %s", tc.token, got.From.ID, got.To.ID)
		}
	}
	cs := env.mustConnect(t, env.secrets["tables"])
	wantCode(t, call(t, cs, "schema_diff", map[string]any{}), store.Forbidden)
}
