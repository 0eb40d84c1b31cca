package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// pagingSnapshot is a release of shop/dev whose table and logic names
// sort in tricky ways (upper before lower case, prefixes, digits, non-ASCII,
// the same name in two connections), listed out of order, with a
// connection that has no tables. digest tells contents apart for cursors.
func pagingSnapshot(id string, version int64, digest string) *snapshot.Snapshot {
	snap := &snapshot.Snapshot{
		Release: snapshot.Release{ID: id, Project: "shop", Environment: "dev", Version: version, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:  snapshot.Origin{Source: snapshot.SourceHub, Digest: "sha256:" + strings.Repeat(digest, 64), SyncedAt: "2026-11-02T00:00:00Z"},
		Connections: []snapshot.Connection{
			{Name: "side", Engine: "mysql"}, {Name: "main", Engine: "postgres"}, {Name: "empty"},
		},
	}
	add := func(conn string, names ...string) {
		for _, n := range names {
			snap.Tables = append(snap.Tables, snapshot.Table{Name: n, Connection: conn,
				Columns: []snapshot.Column{{Name: "id", Type: "integer"}}, PrimaryKey: []string{"id"}})
		}
	}
	add("main", "users", "user", "user_", "Users", "users2", "t_9", "t_10", "고객", "éclair", "x y", "a", "Z", "b")
	add("side", "users", "m", "a", "zz", "AA", "user")
	add("main", "zeta", "00")
	for _, n := range []string{"z", "a/b", "a", "a-b", "a.b", "a_b", "A", "b/c/d", "0", "a/b/c", "B"} {
		snap.Logics = append(snap.Logics, snapshot.Logic{Name: n, SQL: "SELECT 1"})
	}
	return snap
}

// manySnapshot is a release of project p, environment dev, with n tables
// and n logics.
func manySnapshot(project string, n int) *snapshot.Snapshot {
	snap := &snapshot.Snapshot{
		Release:     snapshot.Release{ID: "rel_1", Project: project, Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:      snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("1", 64), SyncedAt: "2026-11-02T00:00:00Z"},
		Connections: []snapshot.Connection{{Name: "main"}},
	}
	for i := range n {
		// Backwards, so snapshot order is not list order.
		snap.Tables = append(snap.Tables, snapshot.Table{Name: fmt.Sprintf("t%05d", n-1-i), Connection: "main",
			Columns: []snapshot.Column{{Name: "id", Type: "integer"}}})
		snap.Logics = append(snap.Logics, snapshot.Logic{Name: fmt.Sprintf("l/%05d", n-1-i), SQL: "SELECT 1"})
	}
	return snap
}

// filterTables keeps the tables of connection ("" keeps all).
func filterTables(refs []TableRef, connection string) []TableRef {
	out := []TableRef{}
	for _, r := range refs {
		if connection == "" || r.Connection == connection {
			out = append(out, r)
		}
	}
	return out
}

// TestPaging walks schema_list_tables and logic_list at several page
// sizes: every item exactly once, in order, with the right total, with and
// without a connection filter.
func TestPaging(t *testing.T) {
	s := openStore(t)
	snap := pagingSnapshot("rel_42", 42, "a")
	put(t, s, snap, true)
	all := sortedTables(snap)

	for _, conn := range []string{"", "main", "side", "empty"} {
		want := filterTables(all, conn)
		for _, limit := range []int{1, 2, 3, 7, 500, 5000, 0} {
			got, err := readTablesBy(t, s, shopDev, conn, limit)
			if err != nil {
				t.Fatalf("TablesPage(%q, limit %d): %v", conn, limit, err)
			}
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("TablesPage(%q, limit %d) mismatch (-want +got):\n%s", conn, limit, diff)
			}
		}
	}
	wantLogics := sortedLogics(snap)
	for _, limit := range []int{1, 2, 3, 500, 5000, 0} {
		got, err := readLogicsBy(t, s, shopDev, limit)
		if err != nil {
			t.Fatalf("LogicsPage(limit %d): %v", limit, err)
		}
		if diff := gocmp.Diff(wantLogics, got); diff != "" {
			t.Errorf("LogicsPage(limit %d) mismatch (-want +got):\n%s", limit, diff)
		}
	}

	// A connection without tables answers an empty list; an unknown one is
	// NOT_FOUND, naming only it, with or without a cursor.
	data, err := s.TablesPage(context.Background(), shopDev, "empty", PageRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var empty wireTablesPage
	if err := decodeStrict(data, &empty); err != nil {
		t.Fatalf("TablesPage(empty): %v\n%s", err, data)
	}
	if diff := gocmp.Diff(wireTablesPage{Tables: []wireTableRef{}}, empty); diff != "" {
		t.Errorf("TablesPage(empty) mismatch (-want +got):\n%s", diff)
	}
	first := firstTablesPage(t, s, shopDev, "", 2)
	for _, cursor := range []string{"", first.NextCursor} {
		_, err := s.TablesPage(context.Background(), shopDev, "warehouse", PageRequest{Cursor: cursor, Limit: 2})
		if ErrorCode(err) != NotFound || ErrorMessage(err) != `connection "warehouse" not found` {
			t.Errorf(`TablesPage("warehouse", cursor %q) = %v, want NOT_FOUND naming it`, cursor, err)
		}
	}
}

// firstTablesPage reads and decodes the first page of TablesPage.
func firstTablesPage(tb testing.TB, s *Store, target Target, connection string, limit int) wireTablesPage {
	tb.Helper()
	data, err := s.TablesPage(context.Background(), target, connection, PageRequest{Limit: limit})
	if err != nil {
		tb.Fatalf("TablesPage(%q, limit %d): %v", connection, limit, err)
	}
	var p wireTablesPage
	if err := decodeStrict(data, &p); err != nil {
		tb.Fatalf("TablesPage(%q, limit %d): %v\n%s", connection, limit, err, data)
	}
	return p
}

// firstLogicsPage reads and decodes the first page of LogicsPage.
func firstLogicsPage(tb testing.TB, s *Store, target Target, limit int) wireLogicsPage {
	tb.Helper()
	data, err := s.LogicsPage(context.Background(), target, PageRequest{Limit: limit})
	if err != nil {
		tb.Fatalf("LogicsPage(limit %d): %v", limit, err)
	}
	var p wireLogicsPage
	if err := decodeStrict(data, &p); err != nil {
		tb.Fatalf("LogicsPage(limit %d): %v\n%s", limit, err, data)
	}
	return p
}

// TestPagingDefaultLimit: limit 0 is 500, and a release of up to 500
// tables answers schema_list_tables whole (docs/tools.md).
func TestPagingDefaultLimit(t *testing.T) {
	s := openStore(t)
	sizes := map[string]int{"p500": 500, "p501": 501, "p1201": 1201}
	for project, n := range sizes {
		put(t, s, manySnapshot(project, n), true)
	}
	for project, n := range sizes {
		target := Target{Project: project, Environment: "dev"}
		snap := manySnapshot(project, n)

		tp := firstTablesPage(t, s, target, "", 0)
		lp := firstLogicsPage(t, s, target, 0)
		wantFirst := min(n, DefaultPageLimit)
		if len(tp.Tables) != wantFirst || tp.Total != n || (tp.NextCursor != "") != (n > DefaultPageLimit) {
			t.Errorf("%s: first TablesPage has %d tables, total %d, nextCursor %q; want %d, %d, a cursor only past %d",
				project, len(tp.Tables), tp.Total, tp.NextCursor, wantFirst, n, DefaultPageLimit)
		}
		if len(lp.Logics) != wantFirst || lp.Total != n || (lp.NextCursor != "") != (n > DefaultPageLimit) {
			t.Errorf("%s: first LogicsPage has %d logics, total %d, nextCursor %q; want %d, %d, a cursor only past %d",
				project, len(lp.Logics), lp.Total, lp.NextCursor, wantFirst, n, DefaultPageLimit)
		}
		if tp := firstTablesPage(t, s, target, "", MaxPageLimit); len(tp.Tables) != n || tp.NextCursor != "" {
			t.Errorf("%s: TablesPage(limit %d) has %d tables, nextCursor %q; want all %d on one page",
				project, MaxPageLimit, len(tp.Tables), tp.NextCursor, n)
		}
		if lp := firstLogicsPage(t, s, target, MaxPageLimit); len(lp.Logics) != n || lp.NextCursor != "" {
			t.Errorf("%s: LogicsPage(limit %d) has %d logics, nextCursor %q; want all %d on one page",
				project, MaxPageLimit, len(lp.Logics), lp.NextCursor, n)
		}

		for _, limit := range []int{0, 1, 2, 500, 5000} {
			if limit == 1 && n != 1201 {
				continue // one page per table: once is enough
			}
			tables, err := readTablesBy(t, s, target, "", limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(sortedTables(snap), tables); diff != "" {
				t.Errorf("%s: TablesPage(limit %d) mismatch (-want +got):\n%s", project, limit, diff)
			}
			tables, err = readTablesBy(t, s, target, "main", limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(sortedTables(snap), tables); diff != "" {
				t.Errorf("%s: TablesPage(main, limit %d) mismatch (-want +got):\n%s", project, limit, diff)
			}
			logics, err := readLogicsBy(t, s, target, limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := gocmp.Diff(sortedLogics(snap), logics); diff != "" {
				t.Errorf("%s: LogicsPage(limit %d) mismatch (-want +got):\n%s", project, limit, diff)
			}
		}
	}
}

func TestPageLimitOutOfRange(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	ctx := context.Background()
	for _, limit := range []int{-1, MaxPageLimit + 1, 1 << 40, math.MinInt} {
		_, err1 := s.TablesPage(ctx, shopDev, "", PageRequest{Limit: limit})
		_, err2 := s.TablesPage(ctx, shopDev, "main", PageRequest{Limit: limit})
		_, err3 := s.LogicsPage(ctx, shopDev, PageRequest{Limit: limit})
		for i, err := range []error{err1, err2, err3} {
			if ErrorCode(err) != InvalidArgument || !strings.Contains(ErrorMessage(err), "limit") {
				t.Errorf("limit %d, call %d: err = %v, want INVALID_ARGUMENT about the limit", limit, i+1, err)
			}
		}
	}
}

// wantCursorError fails unless err is INVALID_ARGUMENT whose message
// contains want.
func wantCursorError(tb testing.TB, what string, err error, want string) {
	tb.Helper()
	if ErrorCode(err) != InvalidArgument || !strings.Contains(ErrorMessage(err), want) {
		tb.Errorf("%s: err = %v (code %q), want INVALID_ARGUMENT saying %q", what, err, ErrorCode(err), want)
	}
}

func TestPageCursorErrors(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, pagingSnapshot("rel_41", 41, "b"), false)
	put(t, s, pagingSnapshot("rel_42", 42, "a"), true)

	tablesCursor := firstTablesPage(t, s, shopDev, "", 2).NextCursor
	mainCursor := firstTablesPage(t, s, shopDev, "main", 2).NextCursor
	logicsCursor := firstLogicsPage(t, s, shopDev, 2).NextCursor
	if tablesCursor == "" || mainCursor == "" || logicsCursor == "" {
		t.Fatal("no nextCursor on a first page of 2")
	}
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

	t.Run("garbage", func(t *testing.T) {
		for _, c := range []string{
			"x", "!!!!", "null", "   ", tablesCursor[:len(tablesCursor)-4], tablesCursor + "=",
			b64("[]"), b64(`["tables"]`), b64(`{"list":"tables"}`), b64(`["tables",1,2,3]`),
			b64(`["tables","x","main"]`), b64(`["tables","x","main","a","b"]`), b64(`["logics","x"]`),
			base64.StdEncoding.EncodeToString([]byte(`["tables","x","main","a"]`)) + "+/",
			strings.Repeat("A", 20<<10),
		} {
			_, err := s.TablesPage(ctx, shopDev, "", PageRequest{Cursor: c, Limit: 2})
			wantCursorError(t, fmt.Sprintf("TablesPage(cursor %.40q)", c), err, "cursor")
			_, err = s.LogicsPage(ctx, shopDev, PageRequest{Cursor: c, Limit: 2})
			wantCursorError(t, fmt.Sprintf("LogicsPage(cursor %.40q)", c), err, "cursor")
		}
	})

	t.Run("cursor of the other list", func(t *testing.T) {
		_, err := s.TablesPage(ctx, shopDev, "", PageRequest{Cursor: logicsCursor, Limit: 2})
		wantCursorError(t, "TablesPage(logics cursor)", err, "cursor")
		_, err = s.TablesPage(ctx, shopDev, "main", PageRequest{Cursor: logicsCursor, Limit: 2})
		wantCursorError(t, "TablesPage(main, logics cursor)", err, "cursor")
		_, err = s.LogicsPage(ctx, shopDev, PageRequest{Cursor: tablesCursor, Limit: 2})
		wantCursorError(t, "LogicsPage(tables cursor)", err, "cursor")
	})

	t.Run("cursor of another release", func(t *testing.T) {
		// Well formed, but made for other contents.
		forged := b64(`["tables","AAAAAAAAAAAA","","main","a"]`)
		_, err := s.TablesPage(ctx, shopDev, "", PageRequest{Cursor: forged, Limit: 2})
		wantCursorError(t, "TablesPage(forged cursor)", err, "release changed")

		prod := pagingSnapshot("rel_p", 1, "c")
		prod.Release.Environment = "prod"
		put(t, s, prod, true)
		shopProd := Target{Project: "shop", Environment: "prod"}
		_, err = s.TablesPage(ctx, shopProd, "", PageRequest{Cursor: tablesCursor, Limit: 2})
		wantCursorError(t, "TablesPage(dev cursor on prod)", err, "release changed")
		_, err = s.LogicsPage(ctx, shopProd, PageRequest{Cursor: logicsCursor, Limit: 2})
		wantCursorError(t, "LogicsPage(dev cursor on prod)", err, "release changed")
	})

	t.Run("same contents stored again", func(t *testing.T) {
		// Re-indexing the same release file changes nothing a cursor
		// points into: cursors stay good (see page.go).
		put(t, s, pagingSnapshot("rel_42", 42, "a"), true)
		data, err := s.TablesPage(ctx, shopDev, "", PageRequest{Cursor: tablesCursor, Limit: 2})
		if err != nil {
			t.Fatalf("TablesPage after storing the same release again: %v", err)
		}
		var p wireTablesPage
		if err := decodeStrict(data, &p); err != nil {
			t.Fatal(err)
		}
		want := sortedTables(pagingSnapshot("rel_42", 42, "a"))[2:4]
		var got []TableRef
		for _, r := range p.Tables {
			got = append(got, TableRef{Connection: r.Connection, Name: r.Name})
		}
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("second page mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("release replaced", func(t *testing.T) {
		// The same release id with other contents (another digest).
		put(t, s, pagingSnapshot("rel_42", 43, "d"), false)
		_, err := s.TablesPage(ctx, shopDev, "", PageRequest{Cursor: tablesCursor, Limit: 2})
		wantCursorError(t, "TablesPage(cursor of the replaced release)", err, "release changed")
		_, err = s.TablesPage(ctx, shopDev, "main", PageRequest{Cursor: mainCursor, Limit: 2})
		wantCursorError(t, "TablesPage(main, cursor of the replaced release)", err, "release changed")
		_, err = s.LogicsPage(ctx, shopDev, PageRequest{Cursor: logicsCursor, Limit: 2})
		wantCursorError(t, "LogicsPage(cursor of the replaced release)", err, "release changed")
		// Listing again from the start works.
		if _, err := readTables(t, s, shopDev, ""); err != nil {
			t.Error(err)
		}
	})

	t.Run("another release made current", func(t *testing.T) {
		cursor := firstTablesPage(t, s, shopDev, "", 2).NextCursor
		lcursor := firstLogicsPage(t, s, shopDev, 2).NextCursor
		if err := s.SetCurrent(ctx, "shop", "dev", "rel_41"); err != nil {
			t.Fatal(err)
		}
		_, err := s.TablesPage(ctx, shopDev, "", PageRequest{Cursor: cursor, Limit: 2})
		wantCursorError(t, "TablesPage(cursor of the release before rollback)", err, "release changed")
		_, err = s.LogicsPage(ctx, shopDev, PageRequest{Cursor: lcursor, Limit: 2})
		wantCursorError(t, "LogicsPage(cursor of the release before rollback)", err, "release changed")
	})
}

// A cursor pages the list it came from: that of one connection, or of all.
func TestPageCursorBoundToConnection(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	ctx := context.Background()
	for _, tc := range []struct{ from, to string }{{"main", ""}, {"", "main"}, {"main", "analytics"}} {
		first, err := s.TablesPage(ctx, shopDev, tc.from, PageRequest{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(first, &page); err != nil || page.NextCursor == "" {
			t.Fatalf("first page of %q: %s, %v", tc.from, first, err)
		}
		_, err = s.TablesPage(ctx, shopDev, tc.to, PageRequest{Cursor: page.NextCursor, Limit: 1})
		if ErrorCode(err) != InvalidArgument || !strings.Contains(ErrorMessage(err), "cursor pages the tables of connection") {
			t.Errorf("cursor of %q used for %q: %v, want INVALID_ARGUMENT", tc.from, tc.to, err)
		}
	}
}
