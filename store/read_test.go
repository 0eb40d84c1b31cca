package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// equateEmpty treats nil and empty slices alike: whether an absent list comes
// back as nil or [] is not part of the contract (both are left out of JSON).
var equateEmpty = cmpopts.EquateEmpty()

func TestCurrentReleaseInfo(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	snap := sampleSnapshot()
	put(t, s, snap, true)

	got, err := s.Current(ctx, shopDev)
	if err != nil {
		t.Fatalf("Current: %v", err)
	}
	want := ReleaseInfo{Release: snap.Release, Origin: snap.Origin, Tables: 6, Logics: 3, Current: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Current mismatch (-want +got):\n%s", diff)
	}

	gotInfo, err := s.ReleaseInfo(ctx, ReleaseKey{Project: "shop", ID: "rel_42"})
	if err != nil {
		t.Fatalf("ReleaseInfo: %v", err)
	}
	if diff := cmp.Diff(want, gotInfo); diff != "" {
		t.Errorf("ReleaseInfo mismatch (-want +got):\n%s", diff)
	}
	_, err = s.ReleaseInfo(ctx, ReleaseKey{Project: "shop", ID: "rel_99"})
	wantCode(t, err, NotFound)

	files, err := s.IndexedFiles(ctx)
	if err != nil {
		t.Fatalf("IndexedFiles: %v", err)
	}
	wantFiles := map[ReleaseKey]IndexedFile{
		{Project: "shop", ID: "rel_42"}: {FileState: fileStateOf(snap), Environment: "dev"},
	}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("IndexedFiles mismatch (-want +got):\n%s", diff)
	}
}

func TestSyncedAtDefaultsToNow(t *testing.T) {
	s := openStore(t)
	snap := sampleSnapshot()
	snap.Origin.SyncedAt = ""
	put(t, s, snap, true)
	got, err := s.Current(context.Background(), shopDev)
	if err != nil {
		t.Fatal(err)
	}
	synced, err := time.Parse(time.RFC3339, got.SyncedAt)
	if err != nil || !strings.HasSuffix(got.SyncedAt, "Z") {
		t.Fatalf("SyncedAt = %q, want an RFC 3339 UTC time (%v)", got.SyncedAt, err)
	}
	if d := time.Since(synced); d < -time.Minute || d > time.Hour {
		t.Errorf("SyncedAt = %q, want about now", got.SyncedAt)
	}
}

// putLookalikes stores two more copies of the sample release beside it: one
// of the same project and environment, not current, and one current for
// another project. Nothing of theirs may show in shop/dev's answers.
func putLookalikes(tb testing.TB, s *Store) {
	tb.Helper()
	for _, o := range []struct {
		project, id string
		current     bool
	}{{"shop", "rel_41", false}, {"other", "rel_42", true}} {
		snap := sampleSnapshot()
		snap.Release.Project, snap.Release.ID, snap.Release.Version = o.project, o.id, 41
		put(tb, s, snap, o.current)
	}
}

func TestTables(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	putLookalikes(t, s)
	ctx := context.Background()

	tests := []struct {
		connection string
		want       []TableRef
	}{
		{"", []TableRef{
			{Connection: "analytics", Name: "events"},
			{Connection: "analytics", Name: "users"},
			{Connection: "main", Name: "posts"},
			{Connection: "main", Name: "purchases"},
			{Connection: "main", Name: "refunds"},
			{Connection: "main", Name: "users"},
		}},
		{"main", []TableRef{
			{Connection: "main", Name: "posts"},
			{Connection: "main", Name: "purchases"},
			{Connection: "main", Name: "refunds"},
			{Connection: "main", Name: "users"},
		}},
		{"analytics", []TableRef{
			{Connection: "analytics", Name: "events"},
			{Connection: "analytics", Name: "users"},
		}},
	}
	for _, tt := range tests {
		got, err := readTables(t, s, shopDev, tt.connection)
		if err != nil {
			t.Fatalf("TablesPage(%q): %v", tt.connection, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("TablesPage(%q) mismatch (-want +got):\n%s", tt.connection, diff)
		}
	}
	// A connection the release does not have is NOT_FOUND, naming only it.
	_, err := s.TablesPage(ctx, shopDev, "warehouse", PageRequest{})
	if ErrorCode(err) != NotFound || ErrorMessage(err) != `connection "warehouse" not found` {
		t.Errorf(`TablesPage("warehouse") = %v, want NOT_FOUND naming it`, err)
	}
}

func TestTable(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	putLookalikes(t, s)

	mainUsersRefs := []Reference{
		// Sorted by referencing connection, table, key position; a
		// cross-connection key and a self reference included.
		{Table: "users", Connection: "analytics", Name: "analytics_users_main_fk", Columns: []string{"id"}, RefColumns: []string{"id"}},
		{Table: "posts", Connection: "main", Name: "posts_author_fk", Columns: []string{"author_id"}, RefColumns: []string{"id"}},
		{Table: "purchases", Connection: "main", Name: "purchases_user_fk", Columns: []string{"user_id"}, RefColumns: []string{"id"}},
		{Table: "users", Connection: "main", Name: "users_invited_by_fk", Columns: []string{"invited_by"}, RefColumns: []string{"id"}},
	}
	analyticsUsersRefs := []Reference{
		{Table: "events", Connection: "analytics", Name: "events_user_fk", Columns: []string{"user_id"}, RefColumns: []string{"id"}},
	}
	purchasesRefs := []Reference{
		{Table: "refunds", Connection: "main", Name: "refunds_purchase_fk", Columns: []string{"item_id", "user_id"}, RefColumns: []string{"item_id", "user_id"}},
	}

	tests := []struct {
		connection, name string
		want             *snapshot.Table
		wantRefs         []Reference
	}{
		{"main", "users", sampleTable(t, "main", "users"), mainUsersRefs},
		{"analytics", "users", sampleTable(t, "analytics", "users"), analyticsUsersRefs},
		{"", "posts", sampleTable(t, "main", "posts"), nil}, // nothing points at posts
		{"main", "posts", sampleTable(t, "main", "posts"), nil},
		{"", "purchases", sampleTable(t, "main", "purchases"), purchasesRefs},
		{"", "refunds", sampleTable(t, "main", "refunds"), nil},
		{"", "events", sampleTable(t, "analytics", "events"), nil},
	}
	for _, tt := range tests {
		got, refs, err := readTable(t, s, shopDev, tt.connection, tt.name)
		if err != nil {
			t.Fatalf("TableJSON(%q, %q): %v", tt.connection, tt.name, err)
		}
		if diff := cmp.Diff(tt.want, got, equateEmpty); diff != "" {
			t.Errorf("TableJSON(%q, %q) mismatch (-want +got):\n%s", tt.connection, tt.name, diff)
		}
		if diff := cmp.Diff(tt.wantRefs, refs, equateEmpty); diff != "" {
			t.Errorf("TableJSON(%q, %q) referencedBy mismatch (-want +got):\n%s", tt.connection, tt.name, diff)
		}
	}
}

// TestTableKeepsOrder checks that column, key and index order is the
// snapshot's, not alphabetical or by insertion id.
func TestTableKeepsOrder(t *testing.T) {
	s := openStore(t)
	snap := sampleSnapshot()
	snap.Tables = []snapshot.Table{{
		Name: "wide", Connection: "main",
		Columns: []snapshot.Column{
			{Name: "zeta", Type: "a"}, {Name: "alpha", Type: "b"}, {Name: "mid", Type: "c"},
			{Name: "beta", Type: "d"}, {Name: "omega", Type: "e"}, {Name: "aa", Type: "f"},
			{Name: "k10", Type: "g"}, {Name: "k2", Type: "h"}, {Name: "k1", Type: "i"},
			{Name: "k9", Type: "j"}, {Name: "k11", Type: "k"},
		},
		PrimaryKey: []string{"omega", "alpha", "zeta"},
		ForeignKeys: []snapshot.ForeignKey{
			{Name: "z_fk", Columns: []string{"k2", "k1"}, RefConnection: "main", RefTable: "other", RefColumns: []string{"b", "a"}},
			{Name: "a_fk", Columns: []string{"k10"}, RefConnection: "main", RefTable: "other", RefColumns: []string{"c"}},
		},
		Indexes: []snapshot.Index{
			{Name: "z_idx", Columns: []string{"mid", "beta"}, Unique: true},
			{Name: "a_idx", Columns: []string{"beta", "mid"}},
		},
	}}
	put(t, s, snap, true)

	got, refs, err := readTable(t, s, shopDev, "", "wide")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&snap.Tables[0], got, equateEmpty); diff != "" {
		t.Errorf("TableJSON mismatch (-want +got):\n%s", diff)
	}
	if len(refs) != 0 {
		t.Errorf("TableJSON referencedBy = %+v, want none", refs)
	}
}

func TestLogics(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	putLookalikes(t, s)

	got, err := readLogics(t, s, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"admin/users", "ping", "purchase_item"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LogicsPage mismatch (-want +got):\n%s", diff)
	}

	for _, l := range sampleSnapshot().Logics {
		got, err := readLogic(t, s, shopDev, l.Name)
		if err != nil {
			t.Fatalf("LogicJSON(%q): %v", l.Name, err)
		}
		if diff := cmp.Diff(&l, got, equateEmpty); diff != "" {
			t.Errorf("LogicJSON(%q) mismatch (-want +got):\n%s", l.Name, diff)
		}
	}
}

func TestNoRelease(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()

	check := func(t *testing.T, target Target) {
		t.Helper()
		_, err1 := s.Current(ctx, target)
		_, err2 := s.TablesPage(ctx, target, "", PageRequest{})
		_, err3 := s.TableJSON(ctx, target, "", "users")
		_, err4 := s.LogicsPage(ctx, target, PageRequest{})
		_, err5 := s.LogicJSON(ctx, target, "ping")
		_, err6 := s.ReleaseJSON(ctx, target)
		_, err7 := s.TablesPage(ctx, target, "main", PageRequest{Limit: 1})
		_, err8 := s.TableJSON(ctx, target, "main", "users")
		for i, err := range []error{err1, err2, err3, err4, err5, err6, err7, err8} {
			if got := ErrorCode(err); got != NoRelease {
				t.Errorf("call %d: code = %q (err %v), want %q", i+1, got, err, NoRelease)
				continue
			}
			if msg := ErrorMessage(err); !strings.Contains(msg, "hubsnap snapshot sync") {
				t.Errorf("call %d: message %q does not mention `hubsnap snapshot sync`", i+1, msg)
			}
		}
	}

	t.Run("empty index", func(t *testing.T) { check(t, shopDev) })

	put(t, s, sampleSnapshot(), false)
	t.Run("release not current", func(t *testing.T) { check(t, shopDev) })

	if err := s.SetCurrent(ctx, "shop", "dev", "rel_42"); err != nil {
		t.Fatal(err)
	}
	t.Run("other environment", func(t *testing.T) { check(t, Target{Project: "shop", Environment: "prod"}) })
	t.Run("other project", func(t *testing.T) { check(t, Target{Project: "blog", Environment: "dev"}) })
}

// otherNames are the table, connection and logic names of the sample that a
// NOT_FOUND message must not leak.
var otherNames = []string{
	"users", "posts", "purchases", "refunds", "events", "main", "analytics",
	"purchase_item", "admin/users", "ping",
}

func TestNotFound(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	ctx := context.Background()

	tests := []struct {
		what  string
		call  func() error
		asked []string // must appear in the message
	}{
		{
			what:  "unknown bare table",
			call:  func() error { _, err := s.TableJSON(ctx, shopDev, "", "invoices"); return err },
			asked: []string{"invoices"},
		},
		{
			what:  "table of another connection",
			call:  func() error { _, err := s.TableJSON(ctx, shopDev, "analytics", "posts"); return err },
			asked: []string{"posts", "analytics"},
		},
		{
			what:  "unknown connection",
			call:  func() error { _, err := s.TableJSON(ctx, shopDev, "warehouse", "users"); return err },
			asked: []string{"users", "warehouse"},
		},
		{
			what:  "near miss of a table",
			call:  func() error { _, err := s.TableJSON(ctx, shopDev, "", "user"); return err },
			asked: []string{`"user"`},
		},
		{
			what:  "unknown logic",
			call:  func() error { _, err := s.LogicJSON(ctx, shopDev, "admin/roles"); return err },
			asked: []string{"admin/roles"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.what, func(t *testing.T) {
			err := tt.call()
			wantCode(t, err, NotFound)
			msg := ErrorMessage(err)
			for _, a := range tt.asked {
				if !strings.Contains(msg, a) {
					t.Errorf("message %q does not name %q", msg, a)
				}
			}
			// Remove what was asked, then no other name may remain.
			rest := msg
			for _, a := range tt.asked {
				rest = strings.ReplaceAll(rest, a, "")
			}
			for _, name := range otherNames {
				if strings.Contains(rest, name) {
					t.Errorf("message %q names %q, which was not asked for", msg, name)
				}
			}
		})
	}
}

func TestAmbiguous(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	ctx := context.Background()

	_, err := s.TableJSON(ctx, shopDev, "", "users")
	wantCode(t, err, Ambiguous)
	msg := ErrorMessage(err)
	for _, want := range []string{"analytics.users", "main.users"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not list %q", msg, want)
		}
	}
	for _, other := range []string{"posts", "purchases", "refunds", "events"} {
		if strings.Contains(msg, other) {
			t.Errorf("message %q names unrelated table %q", msg, other)
		}
	}

	// A qualified lookup settles it.
	for _, conn := range []string{"main", "analytics"} {
		got, _, err := readTable(t, s, shopDev, conn, "users")
		if err != nil {
			t.Fatalf("TableJSON(%q, users): %v", conn, err)
		}
		if got.Connection != conn || got.Name != "users" {
			t.Errorf("TableJSON(%q, users) = %s.%s", conn, got.Connection, got.Name)
		}
	}
}

func TestErrorCodeAndMessage(t *testing.T) {
	tests := []struct {
		err      error
		wantCode Code
		wantMsg  string
	}{
		{nil, "", ""},
		{Errorf(NotFound, "table %q not found", "x"), NotFound, `table "x" not found`},
		{wrap(Errorf(Ambiguous, "two")), Ambiguous, "two"},
		{context.Canceled, Internal, "internal error"},
	}
	for _, tt := range tests {
		if got := ErrorCode(tt.err); got != tt.wantCode {
			t.Errorf("ErrorCode(%v) = %q, want %q", tt.err, got, tt.wantCode)
		}
		if got := ErrorMessage(tt.err); got != tt.wantMsg {
			t.Errorf("ErrorMessage(%v) = %q, want %q", tt.err, got, tt.wantMsg)
		}
	}
}

type wrapped struct{ err error }

func (w wrapped) Error() string { return "outer: " + w.err.Error() }
func (w wrapped) Unwrap() error { return w.err }

func wrap(err error) error { return wrapped{err} }
