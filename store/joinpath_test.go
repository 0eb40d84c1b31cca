package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// joinsDev is the target of joinSnapshot.
var joinsDev = Target{Project: "joins", Environment: "dev"}

// joinSnapshot is a release shaped for join paths: the docs'
// orders/order_items/products/suppliers chain, two keys from messages to
// users, a composite key, a self-reference, a cycle, a table with no keys,
// a key into another connection and one to a table not in the release,
// names that need quoting, and "events" in two connections.
func joinSnapshot() *snapshot.Snapshot {
	col := func(names ...string) []snapshot.Column {
		cs := make([]snapshot.Column, len(names))
		for i, n := range names {
			cs[i] = snapshot.Column{Name: n, Type: "string"}
		}
		return cs
	}
	fk := func(cols []string, table string, refCols ...string) snapshot.ForeignKey {
		return snapshot.ForeignKey{Columns: cols, RefTable: table, RefColumns: refCols}
	}
	one := func(c string) []string { return []string{c} }
	tables := []snapshot.Table{
		{Name: "users", Columns: col("id"), PrimaryKey: one("id")},
		{Name: "messages", Columns: col("id", "sender_id", "recipient_id"), PrimaryKey: one("id"),
			ForeignKeys: []snapshot.ForeignKey{fk(one("sender_id"), "users", "id"), fk(one("recipient_id"), "users", "id")}},
		{Name: "orders", Columns: col("id", "user_id", "coupon_id"), PrimaryKey: one("id"),
			ForeignKeys: []snapshot.ForeignKey{fk(one("user_id"), "users", "id"), fk(one("coupon_id"), "coupons", "id")}},
		{Name: "order_items", Columns: col("order_id", "line_no", "product_id"), PrimaryKey: []string{"order_id", "line_no"},
			ForeignKeys: []snapshot.ForeignKey{fk(one("order_id"), "orders", "id"), fk(one("product_id"), "products", "id")}},
		{Name: "products", Columns: col("id", "supplier_id"), PrimaryKey: one("id"),
			ForeignKeys: []snapshot.ForeignKey{fk(one("supplier_id"), "suppliers", "id")}},
		{Name: "suppliers", Columns: col("id"), PrimaryKey: one("id")},
		{Name: "shipments", Columns: col("id", "order_id", "line_no"), PrimaryKey: one("id"),
			ForeignKeys: []snapshot.ForeignKey{fk([]string{"order_id", "line_no"}, "order_items", "order_id", "line_no")}},
		{Name: "employees", Columns: col("id", "manager_id", "department_id"), PrimaryKey: one("id"),
			ForeignKeys: []snapshot.ForeignKey{fk(one("manager_id"), "employees", "id"), fk(one("department_id"), "departments", "id")}},
		{Name: "departments", Columns: col("id"), PrimaryKey: one("id")},
		{Name: "cyc_a", Columns: col("id", "b_id"), PrimaryKey: one("id"), ForeignKeys: []snapshot.ForeignKey{fk(one("b_id"), "cyc_b", "id")}},
		{Name: "cyc_b", Columns: col("id", "c_id"), PrimaryKey: one("id"), ForeignKeys: []snapshot.ForeignKey{fk(one("c_id"), "cyc_c", "id")}},
		{Name: "cyc_c", Columns: col("id", "a_id"), PrimaryKey: one("id"), ForeignKeys: []snapshot.ForeignKey{fk(one("a_id"), "cyc_a", "id")}},
		{Name: "lonely", Columns: col("id"), PrimaryKey: one("id")},
		{Name: "order", Columns: col("id", "user"), PrimaryKey: one("id"), ForeignKeys: []snapshot.ForeignKey{fk(one("user"), "users", "id")}},
		{Name: "UserProfiles", Columns: col("id", "userId", `say "hi"`), PrimaryKey: one("id"),
			ForeignKeys: []snapshot.ForeignKey{fk(one("userId"), "users", "id"), fk(one(`say "hi"`), "order", "id")}},
		{Name: "events", Columns: col("id"), PrimaryKey: one("id")},
		{Name: "events", Connection: "analytics", Columns: col("id", "user_id"), PrimaryKey: one("id"),
			ForeignKeys: []snapshot.ForeignKey{{Columns: one("user_id"), RefConnection: "main", RefTable: "users", RefColumns: one("id")}}},
	}
	for i := range tables {
		if tables[i].Connection == "" {
			tables[i].Connection = "main"
		}
	}
	return &snapshot.Snapshot{
		Release:     snapshot.Release{ID: "rel_1", Project: "joins", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:      snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("0", 64), SyncedAt: "2026-11-01T10:00:00Z"},
		Connections: []snapshot.Connection{{Name: "main"}, {Name: "analytics"}},
		Tables:      tables,
	}
}

// path is a join path in short: its tables and joins.
type path struct {
	Tables []string
	Joins  []string
}

func TestJoinPaths(t *testing.T) {
	s := openStore(t)
	put(t, s, joinSnapshot(), true)
	for _, tc := range []struct {
		name string
		req  JoinPathRequest
		want []path
		cut  bool
	}{
		{"direct key", JoinPathRequest{From: "orders", To: "users"},
			[]path{{[]string{"orders", "users"}, []string{"users.id = orders.user_id"}}}, false},
		{"reverse direction", JoinPathRequest{From: "users", To: "orders"},
			[]path{{[]string{"users", "orders"}, []string{"orders.user_id = users.id"}}}, false},
		{"two hops", JoinPathRequest{From: "users", To: "order_items"},
			[]path{{[]string{"users", "orders", "order_items"}, []string{"orders.user_id = users.id", "order_items.order_id = orders.id"}}}, false},
		{"three hops, the docs' example", JoinPathRequest{From: "orders", To: "suppliers"},
			[]path{{[]string{"orders", "order_items", "products", "suppliers"}, []string{"order_items.order_id = orders.id",
				"products.id = order_items.product_id", "suppliers.id = products.supplier_id"}}}, false},
		{"parallel keys", JoinPathRequest{From: "users", To: "messages"},
			[]path{
				{[]string{"users", "messages"}, []string{"messages.sender_id = users.id"}},
				{[]string{"users", "messages"}, []string{"messages.recipient_id = users.id"}},
			}, false},
		{"composite key", JoinPathRequest{From: "order_items", To: "shipments"},
			[]path{{[]string{"order_items", "shipments"}, []string{
				"shipments.order_id = order_items.order_id AND shipments.line_no = order_items.line_no"}}}, false},
		{"self-reference is no edge", JoinPathRequest{From: "employees", To: "departments"},
			[]path{{[]string{"employees", "departments"}, []string{"departments.id = employees.department_id"}}}, false},
		{"a table to itself", JoinPathRequest{From: "employees", To: "employees"},
			[]path{{[]string{"employees"}, []string{}}}, false},
		{"a cycle: both ways round, shortest first", JoinPathRequest{From: "cyc_a", To: "cyc_c"},
			[]path{
				{[]string{"cyc_a", "cyc_c"}, []string{"cyc_c.a_id = cyc_a.id"}},
				{[]string{"cyc_a", "cyc_b", "cyc_c"}, []string{"cyc_b.id = cyc_a.b_id", "cyc_c.id = cyc_b.c_id"}},
			}, false},
		{"no path", JoinPathRequest{From: "users", To: "lonely"}, []path{}, false},
		{"across connections: none", JoinPathRequest{From: "analytics.events", To: "users"}, []path{}, false},
		{"quoted identifiers", JoinPathRequest{From: "UserProfiles", To: "order"},
			[]path{
				{[]string{"UserProfiles", "order"}, []string{`"order".id = "UserProfiles"."say ""hi"""`}},
				{[]string{"UserProfiles", "users", "order"}, []string{`users.id = "UserProfiles"."userId"`, `"order"."user" = users.id`}},
			}, false},
		{"maxHops too small", JoinPathRequest{From: "orders", To: "suppliers", MaxHops: 2}, []path{}, false},
		{"maxHops just enough", JoinPathRequest{From: "orders", To: "suppliers", MaxHops: 3},
			[]path{{[]string{"orders", "order_items", "products", "suppliers"}, []string{"order_items.order_id = orders.id",
				"products.id = order_items.product_id", "suppliers.id = products.supplier_id"}}}, false},
		{"limit", JoinPathRequest{From: "users", To: "messages", Limit: 1},
			[]path{{[]string{"users", "messages"}, []string{"messages.sender_id = users.id"}}}, false},
		{"the default limit: 3, by joins then names", JoinPathRequest{From: "users", To: "order"},
			[]path{
				{[]string{"users", "order"}, []string{`"order"."user" = users.id`}},
				{[]string{"users", "UserProfiles", "order"}, []string{`"UserProfiles"."userId" = users.id`, `"order".id = "UserProfiles"."say ""hi"""`}},
			}, false},
		{"connection.table", JoinPathRequest{From: "main.events", To: "main.events"},
			[]path{{[]string{"events"}, []string{}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.JoinPaths(context.Background(), joinsDev, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			short := []path{}
			for _, p := range got.Paths {
				short = append(short, path{p.Tables, p.Joins})
				if want := joinSQL(p); p.SQL != want {
					t.Errorf("sql = %s, want %s", p.SQL, want)
				}
			}
			if diff := gocmp.Diff(tc.want, short); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if got.Truncated != tc.cut {
				t.Errorf("truncated = %v, want %v", got.Truncated, tc.cut)
			}
		})
	}
}

// joinSQL is the sql of a path, from its tables and joins.
func joinSQL(p JoinPath) string {
	sql := "FROM " + sqlName(p.Tables[0])
	for i, j := range p.Joins {
		sql += " JOIN " + sqlName(p.Tables[i+1]) + " ON " + j
	}
	return sql
}

func TestJoinPathErrors(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	_, err := s.JoinPaths(ctx, joinsDev, JoinPathRequest{From: "users", To: "orders"})
	wantCode(t, err, NoRelease)
	put(t, s, joinSnapshot(), true)
	for _, tc := range []struct {
		req  JoinPathRequest
		code Code
		msg  string
	}{
		{JoinPathRequest{From: "invoices", To: "users"}, NotFound, `from: table "invoices" not found`},
		{JoinPathRequest{From: "users", To: "main.invoices"}, NotFound, `to: table "main.invoices" not found`},
		{JoinPathRequest{From: "events", To: "users"}, Ambiguous,
			`from: table "events" is in several connections: analytics.events, main.events; ask for one of them as connection.table`},
		{JoinPathRequest{From: "users", To: "orders", MaxHops: 7}, InvalidArgument, "maxHops must be between 1 and 6, got 7"},
		{JoinPathRequest{From: "users", To: "orders", Limit: 11}, InvalidArgument, "limit must be between 1 and 10, got 11"},
	} {
		_, err := s.JoinPaths(ctx, joinsDev, tc.req)
		wantCode(t, err, tc.code)
		if got := ErrorMessage(err); got != tc.msg {
			t.Errorf("%+v: message %q, want %q", tc.req, got, tc.msg)
		}
	}
}

// A hub referenced by more tables than a search may read: the one path
// between two leaves goes through it, and within 4 joins the answer is
// whole (the walk's 3-join meeting at the hub finds no other). Within 6,
// the walk must page through the hub's 5,010 leaves for paths of 5 and 6
// joins, more than its bound: the answer says it was cut.
func TestJoinPathHubIsBounded(t *testing.T) {
	s := openStore(t)
	snap := &snapshot.Snapshot{
		Release: snapshot.Release{ID: "rel_hub", Project: "joins", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:  snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("0", 64), SyncedAt: "2026-11-01T10:00:00Z"},
		Tables:  []snapshot.Table{{Name: "hub", Connection: "main", Columns: []snapshot.Column{{Name: "id", Type: "int"}}, PrimaryKey: []string{"id"}}},
	}
	for i := range joinEdgeBudget + 10 {
		snap.Tables = append(snap.Tables, snapshot.Table{Name: fmt.Sprintf("leaf_%05d", i), Connection: "main",
			Columns:     []snapshot.Column{{Name: "id", Type: "int"}, {Name: "hub_id", Type: "int"}},
			ForeignKeys: []snapshot.ForeignKey{{Columns: []string{"hub_id"}, RefTable: "hub", RefColumns: []string{"id"}}}})
	}
	put(t, s, snap, true)
	want := []JoinPath{{Tables: []string{"leaf_00001", "hub", "leaf_00002"},
		Joins: []string{"hub.id = leaf_00001.hub_id", "leaf_00002.hub_id = hub.id"},
		SQL:   "FROM leaf_00001 JOIN hub ON hub.id = leaf_00001.hub_id JOIN leaf_00002 ON leaf_00002.hub_id = hub.id"}}
	for _, tc := range []struct {
		hops int
		cut  bool
	}{{DefaultJoinHops, false}, {MaxJoinHops, true}} {
		got, err := s.JoinPaths(context.Background(), joinsDev, JoinPathRequest{From: "leaf_00001", To: "leaf_00002", MaxHops: tc.hops})
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(want, got.Paths); diff != "" || got.Truncated != tc.cut {
			t.Errorf("%d hops: paths (-want +got):\n%s\ntruncated = %v, want %v", tc.hops, diff, got.Truncated, tc.cut)
		}
	}
}

func TestSQLName(t *testing.T) {
	for name, want := range map[string]string{
		"users": "users", "order_items": "order_items", "_x1": "_x1", "order": `"order"`, "user": `"user"`,
		"userId": `"userId"`, "1st": `"1st"`, "a-b": `"a-b"`, `say "hi"`: `"say ""hi"""`, "사용자": `"사용자"`, "": `""`,
	} {
		if got := sqlName(name); got != want {
			t.Errorf("sqlName(%q) = %s, want %s", name, got, want)
		}
	}
}

// Two hubs that more tables point at than a search reads: the 2-join
// paths through the first of those tables come from one statement that
// meets in the middle, and the search reads only the keys of the paths
// (issue 23 found "[]", truncated).
func TestJoinPathBetweenHubsReadsLittle(t *testing.T) {
	s := openStore(t)
	snap := &snapshot.Snapshot{
		Release: snapshot.Release{ID: "rel_hubs", Project: "joins", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:  snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("0", 64), SyncedAt: "2026-11-01T10:00:00Z"},
	}
	id := []snapshot.Column{{Name: "id", Type: "int"}}
	snap.Tables = append(snap.Tables, snapshot.Table{Name: "tenants", Connection: "main", Columns: id, PrimaryKey: []string{"id"}},
		snapshot.Table{Name: "users", Connection: "main", Columns: id, PrimaryKey: []string{"id"}})
	for i := range joinEdgeBudget + 10 {
		snap.Tables = append(snap.Tables, snapshot.Table{Name: fmt.Sprintf("x_%05d", i), Connection: "main",
			Columns: []snapshot.Column{{Name: "tenant_id", Type: "int"}, {Name: "user_id", Type: "int"}},
			ForeignKeys: []snapshot.ForeignKey{{Columns: []string{"tenant_id"}, RefTable: "tenants", RefColumns: []string{"id"}},
				{Columns: []string{"user_id"}, RefTable: "users", RefColumns: []string{"id"}}}})
	}
	put(t, s, snap, true)
	ctx := context.Background()
	err := s.view(ctx, func(tx readTx) error {
		rel, err := currentID(ctx, tx, joinsDev)
		if err != nil {
			return err
		}
		js := newJoinSearch(ctx, tx, rel, TableRef{"main", "tenants"}, TableRef{"main", "users"}, 3)
		if err := js.run(DefaultJoinHops); err != nil {
			return err
		}
		var got []path
		for _, p := range js.paths {
			got = append(got, path{p.Tables, p.Joins})
		}
		want := []path{
			{[]string{"tenants", "x_00000", "users"}, []string{"x_00000.tenant_id = tenants.id", "users.id = x_00000.user_id"}},
			{[]string{"tenants", "x_00001", "users"}, []string{"x_00001.tenant_id = tenants.id", "users.id = x_00001.user_id"}},
			{[]string{"tenants", "x_00002", "users"}, []string{"x_00002.tenant_id = tenants.id", "users.id = x_00002.user_id"}},
		}
		if diff := gocmp.Diff(want, got); diff != "" || js.truncated {
			t.Errorf("paths (-want +got):\n%s\ntruncated = %v, want false", diff, js.truncated)
		}
		if js.edges > 6 || js.lookups > 0 || js.steps > 0 || len(js.adj) > 0 {
			t.Errorf("%d keys read, %d referrers looked up, %d steps, %d tables' levels: want the 6 keys of the paths only",
				js.edges, js.lookups, js.steps, len(js.adj))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A table holding 2,000 keys to a hub that 1,000 leaves point at: each of
// its keys is a path of its own, and a meeting looks at its own keys once,
// not once per key (which made a 4-join search between two leaves read
// 2,000 x 2,000 keys).
func TestJoinPathParallelKeysAtScale(t *testing.T) {
	s := openStore(t)
	id := []snapshot.Column{{Name: "id", Type: "int"}}
	snap := &snapshot.Snapshot{
		Release: snapshot.Release{ID: "rel_many", Project: "joins", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:  snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("0", 64), SyncedAt: "2026-11-01T10:00:00Z"},
		Tables: []snapshot.Table{{Name: "hub", Connection: "main", Columns: id, PrimaryKey: []string{"id"}},
			{Name: "other", Connection: "main", Columns: id, PrimaryKey: []string{"id"}}},
	}
	many := snapshot.Table{Name: "many", Connection: "main", Columns: id}
	for i := range 2_000 {
		col := fmt.Sprintf("hub_%04d", i)
		many.Columns = append(many.Columns, snapshot.Column{Name: col, Type: "int"})
		many.ForeignKeys = append(many.ForeignKeys, snapshot.ForeignKey{Columns: []string{col}, RefTable: "hub", RefColumns: []string{"id"}})
	}
	many.Columns = append(many.Columns, snapshot.Column{Name: "other_id", Type: "int"})
	many.ForeignKeys = append(many.ForeignKeys, snapshot.ForeignKey{Columns: []string{"other_id"}, RefTable: "other", RefColumns: []string{"id"}})
	snap.Tables = append(snap.Tables, many)
	for i := range 1_000 {
		snap.Tables = append(snap.Tables, snapshot.Table{Name: fmt.Sprintf("leaf_%05d", i), Connection: "main",
			Columns:     []snapshot.Column{{Name: "id", Type: "int"}, {Name: "hub_id", Type: "int"}},
			ForeignKeys: []snapshot.ForeignKey{{Columns: []string{"hub_id"}, RefTable: "hub", RefColumns: []string{"id"}}}})
	}
	put(t, s, snap, true)
	via := func(k int) path {
		return path{[]string{"leaf_00001", "hub", "many", "other"},
			[]string{"hub.id = leaf_00001.hub_id", fmt.Sprintf("many.hub_%04d = hub.id", k), "other.id = many.other_id"}}
	}
	for _, tc := range []struct {
		req  JoinPathRequest
		want []path
	}{
		{JoinPathRequest{From: "leaf_00001", To: "other"}, []path{via(0), via(1), via(2)}},
		{JoinPathRequest{From: "leaf_00001", To: "leaf_00002", Limit: 10},
			[]path{{[]string{"leaf_00001", "hub", "leaf_00002"}, []string{"hub.id = leaf_00001.hub_id", "leaf_00002.hub_id = hub.id"}}}},
	} {
		got, err := s.JoinPaths(context.Background(), joinsDev, tc.req)
		if err != nil {
			t.Fatal(err)
		}
		short := []path{}
		for _, p := range got.Paths {
			short = append(short, path{p.Tables, p.Joins})
		}
		if diff := gocmp.Diff(tc.want, short); diff != "" || got.Truncated {
			t.Errorf("%s to %s: paths (-want +got):\n%s\ntruncated = %v, want false", tc.req.From, tc.req.To, diff, got.Truncated)
		}
	}
}
