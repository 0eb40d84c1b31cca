package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
)

// Every answer fits a model's context (docs/tools.md): no tool answer and
// no resource is longer than 64 KiB of text, on any release, with default
// arguments and with the worst ones, unless the caller raised a limit.
// These tests call every tool and read every resource on the shop fixture,
// storetest.Large (10,000 tables), storetest.Huge (100,000) and a release
// of extremes: the longest names, comments, SQL and lists the snapshot
// format allows. Every table and every logic is asked for; the largest
// answers are logged.

const budget = store.AnswerBudget

func TestAnswerBudgetShop(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	checkBudget(t, st, store.Target{Project: "shop", Environment: "dev"})
}

func TestAnswerBudgetLarge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds the 10,000-table index; .ci/run runs it without -race")
	}
	checkBudget(t, largeStore(t), bigDev)
}

func TestAnswerBudgetHuge(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds a 100,000-table index; .ci/run runs it without -race")
	}
	checkBudget(t, hugeStore(t), bigDev)
}

func TestAnswerBudgetExtremes(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("calls every tool on thousands of names (about 6 minutes under -race); .ci/run runs it without -race")
	}
	st := openStore(t)
	if err := st.PutRelease(context.Background(), extremes(), store.FileState{}, true, nil); err != nil {
		t.Fatal(err)
	}
	sizes := checkBudget(t, st, bigDev)
	// The lists that are cut still reach everything: the wide table's
	// columns page by page, exactly once each.
	srv := New(st, Options{Target: bigDev, Version: "test"})
	t.Cleanup(srv.Shutdown)
	var seen []string
	in := GetTableInput{Table: "wide"}
	for pages := 0; ; pages++ {
		ans, err := srv.getTable(context.Background(), &mcp.CallToolRequest{}, in)
		if err != nil {
			t.Fatal(err)
		}
		var tb answer.Table
		if err := json.Unmarshal(ans, &tb); err != nil {
			t.Fatal(err)
		}
		if len(ans) > budget || tb.ColumnsTotal != 4096 {
			t.Fatalf("page %d: %d bytes, columnsTotal %d", pages, len(ans), tb.ColumnsTotal)
		}
		for _, c := range tb.Columns {
			seen = append(seen, c.Name)
		}
		if tb.NextCursor == "" {
			break
		}
		in.Cursor = Cursor(tb.NextCursor)
	}
	if len(seen) != 4096 {
		t.Errorf("paged through %d columns, want 4096", len(seen))
	}
	for i, name := range seen {
		if !strings.HasPrefix(name, fmt.Sprintf("c%04d_", i)) {
			t.Fatalf("column %d is %s: out of order or twice", i, name[:10])
		}
	}
	t.Logf("largest answers: %v", sizes)
}

// checkBudget makes every call and returns the largest answer of each
// tool and resource.
func checkBudget(t *testing.T, st *store.Store, target store.Target) map[string]int {
	t.Helper()
	ctx := context.Background()
	srv := New(st, Options{Target: target, Version: "test"})
	t.Cleanup(srv.Shutdown)
	sizes := map[string]int{}
	worst := map[string]string{}
	note := func(what, which string, ans []byte, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s %s: %v", what, shortName(which), err)
		}
		if len(ans) > budget {
			t.Fatalf("%s %s: %d bytes, over %d", what, shortName(which), len(ans), budget)
		}
		if len(ans) > sizes[what] {
			sizes[what], worst[what] = len(ans), which
		}
	}
	req := &mcp.CallToolRequest{}

	// Every table and logic, and the lists.
	var tables []answer.TableRef
	for cursor := ""; ; {
		ans, err := srv.listTables(ctx, req, ListTablesInput{Cursor: Cursor(cursor)})
		note("schema_list_tables", "page", ans, err)
		var page ListTablesOutput
		json.Unmarshal(ans, &page)
		tables = append(tables, page.Tables...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	for _, tb := range tables {
		ans, err := srv.getTable(ctx, req, GetTableInput{Table: TableName(tb.Name), Connection: Name(tb.Connection)})
		note("schema_get_table", tb.Connection+"."+tb.Name, ans, err)
	}
	var logics []string
	for cursor := ""; ; {
		ans, err := srv.listLogics(ctx, req, ListLogicsInput{Cursor: Cursor(cursor)})
		note("logic_list", "page", ans, err)
		var page ListLogicsOutput
		json.Unmarshal(ans, &page)
		logics = append(logics, page.Logics...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	for _, name := range logics {
		ans, err := srv.getLogic(ctx, req, GetLogicInput{Name: Name(name)})
		note("logic_get", name, ans, err)
	}
	ans, err := srv.releaseInfo(ctx, req, ReleaseInfoInput{})
	note("release_info", "", ans, err)
	// The findings by default and of each rule, at most 200 pages of each.
	for _, code := range append([]string{""}, lint.RuleCodes()...) {
		for cursor, pages := "", 0; pages < 200; pages++ {
			ans, err := srv.check(ctx, req, CheckInput{Code: RuleCode(code), Cursor: Cursor(cursor)})
			note("release_check", code, ans, err)
			var page CheckOutput
			json.Unmarshal(ans, &page)
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
	}
	for _, q := range []string{"id", "name", "a", "user", "status", "created at", "billing invoices", "x"} {
		ans, err := srv.search(ctx, req, SearchInput{Query: Query(q)})
		note("schema_search", q, ans, err)
	}
	// Join paths between the first, middle and last tables, and from the
	// table of the largest answer (the most referenced or widest) to them.
	var ends []string
	for _, i := range []int{0, len(tables) / 2, len(tables) - 1} {
		ends = append(ends, tables[i].Connection+"."+tables[i].Name)
	}
	ends = append(ends, worst["schema_get_table"])
	for _, from := range ends {
		for _, to := range ends {
			ans, err := srv.joinPath(ctx, req, JoinPathInput{From: TableName(from), To: TableName(to)})
			note("schema_join_path", from+" -> "+to, ans, err)
		}
	}
	// Diagrams of the same tables, their structured answer and their
	// Mermaid text.
	for _, centre := range ends {
		for hops := 1; hops <= store.MaxDiagramHops; hops++ {
			ans, text, err := srv.diagram(ctx, DiagramInput{Table: TableName(centre), Hops: hops})
			note("schema_diagram", fmt.Sprintf("%s, %d hops", centre, hops), ans, err)
			note("schema_diagram text", fmt.Sprintf("%s, %d hops", centre, hops), []byte(text), err)
		}
	}
	// The diff with the release before, when there is one.
	if ans, err := srv.diff(ctx, req, DiffInput{}); store.ErrorCode(err) != store.NotFound {
		note("schema_diff", "", ans, err)
	}

	// Through MCP: the resources of the largest answers, and completions.
	cs := connect(t, srv)
	read := func(uri string) {
		t.Helper()
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		note("resources/read", uri, []byte(res.Contents[0].Text), nil)
	}
	read("hubsnap://release")
	if w := worst["schema_get_table"]; w != "" {
		conn, name, _ := strings.Cut(w, ".")
		read("hubsnap://tables/" + escapePath(conn) + "/" + escapePath(name))
	}
	if w := worst["logic_get"]; w != "" {
		read("hubsnap://logics/" + escapePath(w))
	}
	for _, c := range []struct{ uri, arg string }{
		{tableTemplate, "connection"}, {tableTemplate, "table"}, {logicTemplate, "name"},
	} {
		res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: c.uri},
			Argument: mcp.CompleteParamsArgument{Name: c.arg, Value: ""}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		note("completion/complete", c.arg, b, nil)
	}
	for what, n := range sizes {
		t.Logf("%-20s %6d bytes (~%5d tokens) %s", what, n, n/4, shortName(worst[what]))
	}
	return sizes
}

func escapePath(s string) string { return strings.ReplaceAll(url.PathEscape(s), "/", "%2F") }

func shortName(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// extremes is a release at the limits of the snapshot format (the decoder
// refuses anything beyond): a table of 4,096 columns with long comments,
// defaults and enums and all of them in its primary key; a table with
// 4,096 foreign keys and as many indexes; a table 5,000 keys point at;
// names of 1 KiB; a logic with 48 KiB of SQL full of characters JSON
// escapes, 16 KiB of description, 4,096 parameters and 4,096 roles.
func extremes() *snapshot.Snapshot {
	long := func(prefix string, n int) string { return prefix + strings.Repeat("x", n-len(prefix)) }
	snap := &snapshot.Snapshot{
		Release: snapshot.Release{ID: "rel_x", Project: "big", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T00:00:00Z"},
		Origin:  snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("1", 64), SyncedAt: "2026-11-01T00:00:01Z"},
	}
	wide := snapshot.Table{Name: "wide", Connection: "main", Comment: strings.Repeat("Long \"comment\" ", 1092)}
	for i := range 4096 {
		c := snapshot.Column{Name: long(fmt.Sprintf("c%04d_", i), 200), Type: "text", Comment: strings.Repeat("note ", 400)}
		if i < 4 {
			c.Name, c.Type = long(fmt.Sprintf("c%04d_", i), 1024), long("t", 1024)
			c.Comment, c.Default = strings.Repeat("\"q\"\n", 4096), strings.Repeat("d", 4096)
			for e := range 1000 {
				c.Enum = append(c.Enum, long(fmt.Sprintf("v%d_", e), 1024))
			}
		}
		wide.Columns = append(wide.Columns, c)
		wide.PrimaryKey = append(wide.PrimaryKey, c.Name)
	}
	keys := snapshot.Table{Name: "keys", Connection: "main", Columns: []snapshot.Column{{Name: "a", Type: "int"}}}
	for i := range 4096 {
		keys.ForeignKeys = append(keys.ForeignKeys, snapshot.ForeignKey{Name: long(fmt.Sprintf("fk%d_", i), 100),
			Columns: []string{"a"}, RefConnection: "main", RefTable: "hub", RefColumns: []string{"id"}})
		keys.Indexes = append(keys.Indexes, snapshot.Index{Name: long(fmt.Sprintf("ix%d_", i), 100), Columns: []string{"a"}})
	}
	snap.Tables = append(snap.Tables, wide, keys,
		snapshot.Table{Name: "hub", Connection: "main", Columns: []snapshot.Column{{Name: "id", Type: "int"}}, PrimaryKey: []string{"id"}})
	for i := range 900 {
		snap.Tables = append(snap.Tables, snapshot.Table{Name: long(fmt.Sprintf("t%04d_", i), 1024), Connection: "main",
			Columns:     []snapshot.Column{{Name: "hub_id", Type: "int"}},
			ForeignKeys: []snapshot.ForeignKey{{Columns: []string{"hub_id"}, RefConnection: "main", RefTable: "hub", RefColumns: []string{"id"}}}})
	}
	l := snapshot.Logic{Name: "huge", Description: strings.Repeat("describe ", 1820), SQL: strings.Repeat("SELECT '\"x\"'\n", 3780),
		Auth: snapshot.Auth{Required: true}}
	for i := range 4096 {
		l.Params = append(l.Params, snapshot.Param{Name: long(fmt.Sprintf("p%d_", i), 100), Type: "text"})
		l.Auth.Roles = append(l.Auth.Roles, long(fmt.Sprintf("role%d_", i), 100))
	}
	snap.Logics = append(snap.Logics, l)
	for i := range 600 {
		snap.Logics = append(snap.Logics, snapshot.Logic{Name: long(fmt.Sprintf("l%04d_", i), 1000), SQL: "SELECT 1"})
	}
	return snap
}
