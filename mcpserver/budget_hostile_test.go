package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAnswerBudgetHostile holds every answer to 64 KiB on a release built
// to make JSON long: every name is 1 KiB of '"' (two bytes each in JSON),
// every free text is at its bound and made of control characters (six
// bytes each), and the worst table has all of it at once: its comment,
// long columns, a one-column primary key, 4,096 foreign keys and indexes,
// and 300 tables that point at it. A bare name in 300 connections is
// AMBIGUOUS, in a message of bounded size. The release before it differs
// in every text, so the diff has the worst texts to show.
func TestAnswerBudgetHostile(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("calls every tool on thousands of 1 KiB names; .ci/run runs it without -race")
	}
	st := openStore(t)
	ctx := context.Background()
	for v := 1; v <= 2; v++ {
		if err := st.PutRelease(ctx, hostile(v), store.FileState{}, true, nil); err != nil {
			t.Fatal(err)
		}
	}
	sizes := checkBudget(t, st, bigDev)
	if sizes["schema_get_table"] == 0 || sizes["logic_get"] == 0 || sizes["schema_diff"] == 0 {
		t.Fatalf("some answers were never made: %v", sizes)
	}

	srv := New(st, Options{Target: bigDev, Version: "test"})
	t.Cleanup(srv.Shutdown)
	req := &mcp.CallToolRequest{}
	for _, call := range []struct {
		what string
		run  func() ([]byte, error)
	}{
		{"schema_get_table dup", func() ([]byte, error) { return srv.getTable(ctx, req, GetTableInput{Table: "dup"}) }},
		{"schema_join_path dup", func() ([]byte, error) { return srv.joinPath(ctx, req, JoinPathInput{From: "dup", To: "dup"}) }},
	} {
		_, err := call.run()
		if store.ErrorCode(err) != store.Ambiguous {
			t.Fatalf("%s: %v, want AMBIGUOUS", call.what, err)
		}
		if msg := store.ErrorMessage(err); len(msg) > 8<<10 || !strings.Contains(msg, "more;") {
			t.Errorf("%s: a message of %d bytes: %.200s", call.what, len(msg), msg)
		}
	}
}

// hostile is version v of the release of TestAnswerBudgetHostile.
func hostile(v int) *snapshot.Snapshot {
	// name is a name of 1 KiB: a prefix that makes it unique, then quotes.
	name := func(format string, args ...any) string {
		p := fmt.Sprintf(format, args...)
		return p + strings.Repeat(`"`, 1024-len(p))
	}
	// text is a free text of n bytes of control characters, by version.
	text := func(n int) string { return strings.Repeat(string(rune(v)), n) }
	snap := &snapshot.Snapshot{
		Release: snapshot.Release{ID: fmt.Sprintf("rel_h%d", v), Project: "big", Environment: "dev", Version: int64(v),
			CreatedAt: "2026-11-01T00:00:00Z"},
		Origin: snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("1", 64),
			SyncedAt: "2026-11-01T00:00:01Z"},
	}
	conn := name("c")
	hub := snapshot.Table{Name: name("hub"), Connection: conn, Comment: text(16 << 10),
		Columns: []snapshot.Column{{Name: name("id"), Type: name("t%d", v)}}, PrimaryKey: []string{name("id")}}
	worst := snapshot.Table{Name: name("worst"), Connection: conn, Comment: text(16 << 10)}
	for i := range 4096 {
		c := snapshot.Column{Name: name("c%04d", i), Type: name("t%d", v), Comment: text(64)}
		if i < 8 {
			c.Comment, c.Default = text(16<<10), text(4<<10)
			for e := range 1000 {
				c.Enum = append(c.Enum, name("v%d_%d", v, e))
			}
		}
		worst.Columns = append(worst.Columns, c)
	}
	worst.PrimaryKey = []string{worst.Columns[0].Name}
	for i := range 4096 {
		worst.ForeignKeys = append(worst.ForeignKeys, snapshot.ForeignKey{Name: name("fk%d", i), OnDelete: name("d%d", v),
			Columns: []string{worst.Columns[i].Name}, RefConnection: conn, RefTable: hub.Name, RefColumns: []string{name("id")}})
		worst.Indexes = append(worst.Indexes, snapshot.Index{Name: name("ix%d", i), Columns: []string{worst.Columns[i].Name}})
	}
	snap.Tables = append(snap.Tables, hub, worst)
	for i := range 300 {
		snap.Tables = append(snap.Tables, snapshot.Table{Name: name("r%d", i), Connection: conn, Comment: text(100),
			Columns:     []snapshot.Column{{Name: name("w"), Type: name("t%d", v)}},
			ForeignKeys: []snapshot.ForeignKey{{Name: name("rk%d", i), Columns: []string{name("w")}, RefConnection: conn, RefTable: worst.Name, RefColumns: []string{worst.Columns[0].Name}}}})
	}
	for i := range 300 {
		snap.Tables = append(snap.Tables, snapshot.Table{Name: "dup", Connection: name("k%d", i),
			Columns: []snapshot.Column{{Name: "id", Type: "int"}}})
	}
	l := snapshot.Logic{Name: strings.Repeat("L", 1024), Description: text(16 << 10),
		SQL: strings.Repeat(`"`, 48<<10-1) + string(rune('0'+v)), Auth: snapshot.Auth{Required: true}}
	for i := range 4096 {
		l.Params = append(l.Params, snapshot.Param{Name: name("p%d", i), Type: name("t%d", v)})
		l.Auth.Roles = append(l.Auth.Roles, name("role%d_%d", v, i))
	}
	snap.Logics = append(snap.Logics, l)
	return snap
}
