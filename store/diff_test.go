package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store/answer"
)

// changedSample is sampleSnapshot as release rel_43 (version 43), with
// every kind of change schema_diff reports, and some it must not.
func changedSample() *snapshot.Snapshot {
	s := sampleSnapshot()
	s.Release.ID, s.Release.Version = "rel_43", 43
	users, posts, purchases, refunds := &s.Tables[0], &s.Tables[1], &s.Tables[2], &s.Tables[3]

	users.Comment = "People who may sign in"                                                                     // table comment
	users.Columns[1].Nullable = true                                                                             // nullable
	users.Columns[1].Comment = ""                                                                                // comment removed
	users.Columns[3].Enum = []string{"member", "admin"}                                                          // enum
	users.Columns[3].Default = ""                                                                                // default removed
	users.Columns = slices.Delete(users.Columns, 2, 3)                                                           // display_name removed
	users.Columns = append(users.Columns, snapshot.Column{Name: "nickname", Type: "string"})                     // column added
	users.Columns[0], users.Columns[1] = users.Columns[1], users.Columns[0]                                      // a move: no change
	users.Indexes = users.Indexes[:1]                                                                            // index removed
	users.ForeignKeys[0].OnDelete = "cascade"                                                                    // a key changed: removed and added
	posts.Columns[3].Type = "jsonb"                                                                              // type
	posts.Columns[2].Default = "'published'"                                                                     // default
	posts.Indexes = append(posts.Indexes, snapshot.Index{Name: "posts_status_idx", Columns: []string{"status"}}) // index added
	purchases.PrimaryKey = []string{"user_id", "item_id"}                                                        // primary key order
	refunds.ForeignKeys = nil                                                                                    // key removed
	refunds.Comment = ""                                                                                         // comment removed
	s.Tables = slices.Delete(s.Tables, 5, 6)                                                                     // analytics.events removed
	s.Tables = append(s.Tables, snapshot.Table{Name: "reviews", Connection: "main",                              // table added
		Columns: []snapshot.Column{{Name: "id", Type: "string"}}, PrimaryKey: []string{"id"}})

	pi, admin := &s.Logics[0], &s.Logics[1]
	pi.SQL = strings.Replace(pi.SQL, "RETURNING id", "RETURNING id, bought_at", 1)                                // sql
	pi.Params = append(pi.Params[1:], snapshot.Param{Name: "coupon", Type: "string"})                             // user_id removed, coupon added
	pi.Params[1].Required = true                                                                                  // quantity required
	pi.Params[1].Type = "int"                                                                                     // and retyped
	admin.Auth.Roles = []string{"support", "admin"}                                                               // roles reordered: no change
	admin.Description = ""                                                                                        // description removed
	s.Logics = slices.Delete(s.Logics, 2, 3)                                                                      // ping removed
	s.Logics = append(s.Logics, snapshot.Logic{Name: "reviews/create", SQL: "INSERT INTO reviews DEFAULT VALUES", // logic added
		Auth: snapshot.Auth{Required: true, Roles: []string{"authenticated"}}})
	return s
}

// everything is a request for both parts.
func everything(from, to string) DiffRequest {
	return DiffRequest{From: from, To: to, Tables: true, Logics: true}
}

func TestDiffEveryKindOfChange(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), false)
	put(t, s, changedSample(), true)
	got, err := s.DiffJSON(context.Background(), shopDev, everything("", ""))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"from":{"id":"rel_42","version":42},"to":{"id":"rel_43","version":43},
"tables":{
 "added":[{"name":"reviews","connection":"main"}],
 "removed":[{"name":"events","connection":"analytics"}],
 "changed":[
  {"name":"posts","connection":"main",
   "columns":{"changed":[{"name":"status","from":{"default":"'draft'"},"to":{"default":"'published'"}},
                         {"name":"body","from":{"type":"text"},"to":{"type":"jsonb"}}]},
   "indexes":{"added":[{"name":"posts_status_idx","columns":["status"],"unique":false}]}},
  {"name":"purchases","connection":"main","primaryKey":{"from":["item_id","user_id"],"to":["user_id","item_id"]}},
  {"name":"refunds","connection":"main","comment":{"from":"Money sent back","to":""},
   "foreignKeys":{"removed":[{"name":"refunds_purchase_fk","columns":["item_id","user_id"],
     "references":{"table":"purchases","columns":["item_id","user_id"]},"onDelete":"restrict"}]}},
  {"name":"users","connection":"main","comment":{"from":"People who can sign in","to":"People who may sign in"},
   "columns":{"added":["nickname"],"removed":["display_name"],
    "changed":[{"name":"email","from":{"nullable":false,"comment":"login, lower case"},"to":{"nullable":true,"comment":""}},
               {"name":"role","from":{"default":"'member'","enum":["member","admin","support"]},"to":{"default":"","enum":["member","admin"]}}]},
   "foreignKeys":{
    "added":[{"name":"users_org_fk","column":"org_id","columns":["org_id"],"references":{"table":"organizations","column":"id","columns":["id"]},"onDelete":"cascade"}],
    "removed":[{"name":"users_org_fk","column":"org_id","columns":["org_id"],"references":{"table":"organizations","column":"id","columns":["id"]},"onDelete":"set null"}]},
   "indexes":{"removed":[{"name":"users_org_role_idx","columns":["org_id","role"],"unique":false}]}}]},
"logics":{
 "analysisPending":true,
 "added":["reviews/create"],
 "removed":["ping"],
 "changed":[
  {"name":"admin/users","fields":["description"],"description":{"from":"List users for the admin console","to":""}},
  {"name":"purchase_item","fields":["sql","params"],
   "sql":{"from":"INSERT INTO purchases (user_id, item_id) VALUES (:user_id, :item_id) RETURNING id",
          "to":"INSERT INTO purchases (user_id, item_id) VALUES (:user_id, :item_id) RETURNING id, bought_at"},
   "params":{"added":["coupon"],"removed":["user_id"],"changed":[{"name":"quantity","from":{"type":"integer","required":false},"to":{"type":"int","required":true}}]}}]}}`
	wantJSON(t, got, want)
}

// wantJSON fails unless got holds the JSON value of want.
func wantJSON(tb testing.TB, got []byte, want string) {
	tb.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		tb.Fatalf("not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		tb.Fatalf("want is not JSON: %v", err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		tb.Errorf("answer differs:\ngot  %s\nwant %s", gb, wb)
	}
}

func TestDiffIdenticalAndParts(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, sampleSnapshot(), true)
	same := sampleSnapshot()
	same.Release.ID, same.Release.Version = "rel_41", 41
	same.Tables[0].Columns[0], same.Tables[0].Columns[1] = same.Tables[0].Columns[1], same.Tables[0].Columns[0]
	put(t, s, same, false)
	got, err := s.DiffJSON(ctx, shopDev, everything("", ""))
	if err != nil {
		t.Fatal(err)
	}
	wantJSON(t, got, `{"from":{"id":"rel_41","version":41},"to":{"id":"rel_42","version":42},"tables":{},"logics":{"analysisPending":true}}`)

	// A release against itself, and only the parts asked for.
	put(t, s, changedSample(), false)
	got, err = s.DiffJSON(ctx, shopDev, DiffRequest{From: "rel_42", To: "rel_42", Logics: true})
	if err != nil {
		t.Fatal(err)
	}
	wantJSON(t, got, `{"from":{"id":"rel_42","version":42},"to":{"id":"rel_42","version":42},"logics":{"analysisPending":true}}`)
	got, err = s.DiffJSON(ctx, shopDev, DiffRequest{To: "rel_43", Tables: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), `"logics"`) || !strings.Contains(string(got), `"from":{"id":"rel_42"`) {
		t.Errorf("tables only, from the release before rel_43: %s", got)
	}
	got, err = s.DiffJSON(ctx, shopDev, DiffRequest{From: "rel_41", To: "rel_42"})
	if err != nil {
		t.Fatal(err)
	}
	wantJSON(t, got, `{"from":{"id":"rel_41","version":41},"to":{"id":"rel_42","version":42}}`)
}

func TestDiffErrors(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	_, err := s.DiffJSON(ctx, shopDev, everything("", ""))
	wantCode(t, err, NoRelease)
	put(t, s, sampleSnapshot(), true)
	prod := sampleSnapshot()
	prod.Release.ID, prod.Release.Environment, prod.Release.Version = "rel_p1", "prod", 1
	put(t, s, prod, true)
	for _, tc := range []struct {
		req  DiffRequest
		code Code
		msg  string
	}{
		{everything("", ""), NotFound,
			"no release older than rel_42 (version 42) is cached for shop/dev; fetch one with `hubsnap snapshot sync --release ID`"},
		{everything("rel_9", ""), NotFound,
			"release \"rel_9\" of project \"shop\" is not in the cache; fetch it with `hubsnap snapshot sync --release rel_9`"},
		{everything("", "rel_9"), NotFound,
			"release \"rel_9\" of project \"shop\" is not in the cache; fetch it with `hubsnap snapshot sync --release rel_9`"},
		{everything("rel_p1", ""), WrongEnvironment,
			"release \"rel_p1\" is of environment \"prod\", not \"dev\": a diff compares the releases of one environment"},
		{everything("rel_42", "rel_p1"), WrongEnvironment,
			"release \"rel_p1\" is of environment \"prod\", not \"dev\": a diff compares the releases of one environment"},
		{DiffRequest{From: "rel_42", Limit: MaxDiffLimit + 1}, InvalidArgument, "limit must be between 1 and 1000, got 1001"},
	} {
		_, err := s.DiffJSON(ctx, shopDev, tc.req)
		wantCode(t, err, tc.code)
		if got := ErrorMessage(err); got != tc.msg {
			t.Errorf("%+v: message %q, want %q", tc.req, got, tc.msg)
		}
	}
	// The newest release of prod has nothing before it either, and a
	// release of dev is not one of prod's.
	_, err = s.DiffJSON(ctx, Target{Project: "shop", Environment: "prod"}, everything("", ""))
	wantCode(t, err, NotFound)
}

// The limit counts every entry, tables first; "more" says the rest was
// left out.
func TestDiffLimit(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), false)
	put(t, s, changedSample(), true)
	ctx := context.Background()
	for limit, want := range map[int]string{
		2: `{"from":{"id":"rel_42","version":42},"to":{"id":"rel_43","version":43},
			"tables":{"removed":[{"name":"events","connection":"analytics"}],
			"changed":[{"name":"posts","connection":"main",
			"columns":{"changed":[{"name":"status","from":{"default":"'draft'"},"to":{"default":"'published'"}},
			{"name":"body","from":{"type":"text"},"to":{"type":"jsonb"}}]},
			"indexes":{"added":[{"name":"posts_status_idx","columns":["status"],"unique":false}]}}]},
			"logics":{"analysisPending":true},"more":true}`,
	} {
		got, err := s.DiffJSON(ctx, shopDev, DiffRequest{Tables: true, Logics: true, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		wantJSON(t, got, want)
	}
	// Every table, then the first logic by name.
	got, err := s.DiffJSON(ctx, shopDev, DiffRequest{Tables: true, Logics: true, Limit: 7})
	if err != nil {
		t.Fatal(err)
	}
	var ans answer.DiffOutput
	if err := json.Unmarshal(got, &ans); err != nil {
		t.Fatal(err)
	}
	tb, lg := ans.Tables, ans.Logics
	if !ans.More || len(tb.Added) != 1 || len(tb.Removed) != 1 || len(tb.Changed) != 4 || lg.Added != nil || lg.Removed != nil ||
		len(lg.Changed) != 1 || lg.Changed[0].Name != "admin/users" {
		t.Errorf("limit 7: %s", got)
	}
	// Exactly as many entries as the limit: nothing more.
	got, err = s.DiffJSON(ctx, shopDev, DiffRequest{Tables: true, Logics: true, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	ans = answer.DiffOutput{}
	if err := json.Unmarshal(got, &ans); err != nil {
		t.Fatal(err)
	}
	if ans.More || len(ans.Logics.Changed) != 2 {
		t.Errorf("limit 10: %s", got)
	}
}

// Long texts are cut around the change, a huge table change is given in
// part, and no answer outgrows 64 KiB at the default limit.
func TestDiffBytes(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	old := sampleSnapshot()
	old.Release.ID, old.Release.Version = "rel_41", 41
	long := strings.Repeat("SELECT 1 UNION ALL ", 2500)
	old.Logics[0].SQL = long + "SELECT 2"
	wide := snapshot.Table{Name: "wide", Connection: "main", Columns: []snapshot.Column{{Name: "id", Type: "string"}}}
	old.Tables = append(old.Tables, wide)
	put(t, s, old, false)
	snap := sampleSnapshot()
	snap.Logics[0].SQL = long + "SELECT 3"
	for i := range 3000 {
		wide.Columns = append(wide.Columns, snapshot.Column{Name: fmt.Sprintf("column_with_a_long_name_%04d", i), Type: "string"})
	}
	snap.Tables = append(snap.Tables, wide)
	put(t, s, snap, true)

	got, err := s.DiffJSON(ctx, shopDev, everything("", ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 64<<10 {
		t.Errorf("answer is %d bytes", len(got))
	}
	var ans answer.DiffOutput
	if err := json.Unmarshal(got, &ans); err != nil {
		t.Fatal(err)
	}
	if !ans.More || len(ans.Tables.Changed) != 1 || !ans.Tables.Changed[0].More || ans.Tables.Changed[0].Name != "wide" {
		t.Fatalf("want wide, cut, and more: %.300s", got)
	}
	if n := len(ans.Tables.Changed[0].Columns.Added); n < 1000 || n >= 3000 {
		t.Errorf("%d of 3,000 added columns given", n)
	}
	// The logics were left out, after the tables: asked for alone, the SQL
	// shows the change with some context.
	got, err = s.DiffJSON(ctx, shopDev, DiffRequest{Logics: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &ans); err != nil {
		t.Fatal(err)
	}
	sql := ans.Logics.Changed[0].SQL
	if !sql.Cut || !strings.HasPrefix(sql.From, "…") || !strings.HasSuffix(sql.From, "SELECT 2") ||
		!strings.HasSuffix(sql.To, "SELECT 3") || len(sql.From) > 200 {
		t.Errorf("sql = %+v", sql)
	}
	// A person's report is whole.
	got, err = s.DiffJSON(ctx, shopDev, DiffRequest{Tables: true, Logics: true, Whole: true})
	if err != nil {
		t.Fatal(err)
	}
	ans = answer.DiffOutput{}
	if err := json.Unmarshal(got, &ans); err != nil {
		t.Fatal(err)
	}
	if ans.More || len(ans.Tables.Changed[0].Columns.Added) != 3000 || ans.Logics.Changed[0].SQL.From != old.Logics[0].SQL {
		t.Errorf("whole diff cut: more %v, %d columns", ans.More, len(ans.Tables.Changed[0].Columns.Added))
	}
}

func TestChangeExcerpt(t *testing.T) {
	for _, tc := range []struct {
		a, b         string
		limit        int
		wantA, wantB string
		cut          bool
	}{
		{"short", "text", 100, "short", "text", false},
		{strings.Repeat("a", 200) + "X" + strings.Repeat("z", 200), strings.Repeat("a", 200) + "Y" + strings.Repeat("z", 200), 100,
			"…" + strings.Repeat("a", 12) + "X" + strings.Repeat("z", 12) + "…", "…" + strings.Repeat("a", 12) + "Y" + strings.Repeat("z", 12) + "…", true},
		{strings.Repeat("a", 100) + strings.Repeat("X", 100), strings.Repeat("a", 100) + strings.Repeat("Y", 100), 100,
			"…" + strings.Repeat("a", 12) + strings.Repeat("X", 38) + "…", "…" + strings.Repeat("a", 12) + strings.Repeat("Y", 38) + "…", true},
		{strings.Repeat("가", 100) + "나", strings.Repeat("가", 100) + "다", 100,
			"…" + strings.Repeat("가", 4) + "나", "…" + strings.Repeat("가", 4) + "다", true},
	} {
		a, b, cut := changeExcerpt(tc.a, tc.b, tc.limit)
		if a != tc.wantA || b != tc.wantB || cut != tc.cut {
			t.Errorf("changeExcerpt(%.20q, %.20q, %d) = %q, %q, %v; want %q, %q, %v", tc.a, tc.b, tc.limit, a, b, cut, tc.wantA, tc.wantB, tc.cut)
		}
	}
}
