package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// TestDecodeStrict checks the test helpers' decoder itself: each of these
// answers is wrong in one way it must notice.
func TestDecodeStrict(t *testing.T) {
	good := `{"name":"a","connection":"main","primaryKey":null,"columns":[{"name":"id","type":"int","nullable":false}],"foreignKeys":[]}`
	if _, err := decodeTable([]byte(good)); err != nil {
		t.Fatalf("decodeTable(%s): %v", good, err)
	}
	for _, tt := range []struct{ why, answer string }{
		{"an unknown member", `{"name":"a","connection":"main","primaryKey":null,"columns":[],"foreignKeys":[],"extra":1}`},
		{"a member in another case", `{"name":"a","connection":"main","primaryKey":null,"columns":[],"foreignKeys":[],"NAME":"b"}`},
		{"a key twice", `{"name":"a","name":"a","connection":"main","primaryKey":null,"columns":[],"foreignKeys":[]}`},
		{"primaryKey missing", `{"name":"a","connection":"main","columns":[],"foreignKeys":[]}`},
		{"columns missing", `{"name":"a","connection":"main","primaryKey":null,"foreignKeys":[]}`},
		{"columns null", `{"name":"a","connection":"main","primaryKey":null,"columns":null,"foreignKeys":[]}`},
		{"an empty extra", `{"name":"a","connection":"main","primaryKey":null,"columns":[],"foreignKeys":[],"comment":""}`},
		{"an empty extra", `{"name":"a","connection":"main","primaryKey":null,"columns":[],"foreignKeys":[],"indexes":[]}`},
		{"nullable missing", `{"name":"a","connection":"main","primaryKey":null,"columns":[{"name":"id","type":"t"}],"foreignKeys":[]}`},
		{"more after it", `{"name":"a","connection":"main","primaryKey":null,"columns":[],"foreignKeys":[]} {}`},
		{"its end cut off", `{"name":"a","connection":"main","primaryKey":null,"columns":[],"foreignKeys":[]`},
		{"invalid UTF-8", "{\"name\":\"a\xff\",\"connection\":\"main\",\"primaryKey\":null,\"columns\":[],\"foreignKeys\":[]}"},
		{"a one-column key without name", `{"name":"a","connection":"main","primaryKey":{"columns":[{"name":"id","type":"t"}]},"columns":[{"name":"id","type":"t","nullable":false}],"foreignKeys":[]}`},
		{"a one-column foreign key without column", `{"name":"a","connection":"main","primaryKey":null,"columns":[],"foreignKeys":[{"columns":["x"],"references":{"table":"b","columns":["y"]}}]}`},
		{"the table's own connection named", `{"name":"a","connection":"main","primaryKey":null,"columns":[],"foreignKeys":[{"column":"x","columns":["x"],"references":{"table":"b","connection":"main","column":"y","columns":["y"]}}]}`},
		{"the table's own connection named", `{"name":"a","connection":"main","primaryKey":null,"columns":[],"foreignKeys":[],"referencedBy":[{"table":"b","connection":"main","columns":["x"],"referencedColumns":["y"]}]}`},
		{"referencedByTotal without a cut", `{"name":"a","connection":"main","primaryKey":null,"columns":[],"foreignKeys":[],"referencedBy":[{"table":"b","columns":["x"],"referencedColumns":["y"]}],"referencedByTotal":2}`},
	} {
		if _, err := decodeTable([]byte(tt.answer)); err == nil {
			t.Errorf("decodeTable of an answer with %s succeeded: %s", tt.why, tt.answer)
		}
	}
}

// TestReferencedByCap: at most 100 entries, in order, and
// referencedByTotal exactly when there are more (docs/tools.md).
func TestReferencedByCap(t *testing.T) {
	s := openStore(t)
	snap := &snapshot.Snapshot{
		Release:     snapshot.Release{ID: "rel_42", Project: "shop", Environment: "dev", Version: 42, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:      snapshot.Origin{Source: snapshot.SourceHub, Digest: "sha256:" + strings.Repeat("e", 64), SyncedAt: "2026-11-02T00:00:00Z"},
		Connections: []snapshot.Connection{{Name: "main"}, {Name: "aux"}},
	}
	id := []snapshot.Column{{Name: "id", Type: "integer"}}
	for _, name := range []string{"hub", "hub100", "hub101"} {
		snap.Tables = append(snap.Tables, snapshot.Table{Name: name, Connection: "main", Columns: id, PrimaryKey: []string{"id"}})
	}
	// 150 tables point at hub (ref_007 twice, ten of them from another
	// connection, which sorts first), the first 100 at hub100 and the
	// first 101 at hub101.
	for i := range 150 {
		n := 149 - i // out of order
		conn := "main"
		if n%15 == 0 {
			conn = "aux"
		}
		name := fmt.Sprintf("ref_%03d", n)
		tbl := snapshot.Table{Name: name, Connection: conn, Columns: []snapshot.Column{
			{Name: "id", Type: "integer"}, {Name: "hub_id", Type: "integer"}, {Name: "hub_id2", Type: "integer", Nullable: true},
		}}
		fk := func(target, col string) snapshot.ForeignKey {
			return snapshot.ForeignKey{Name: name + "_" + target + "_" + col, Columns: []string{col}, RefConnection: "main",
				RefTable: target, RefColumns: []string{"id"}}
		}
		if n <= 100 {
			tbl.ForeignKeys = append(tbl.ForeignKeys, fk("hub101", "hub_id"))
		}
		tbl.ForeignKeys = append(tbl.ForeignKeys, fk("hub", "hub_id"))
		if n < 100 {
			tbl.ForeignKeys = append(tbl.ForeignKeys, fk("hub100", "hub_id"))
		}
		if n == 7 {
			unnamed := fk("hub", "hub_id2")
			unnamed.Name = ""
			tbl.ForeignKeys = append(tbl.ForeignKeys, unnamed)
		}
		snap.Tables = append(snap.Tables, tbl)
	}
	put(t, s, snap, true)

	for _, tt := range []struct {
		table       string
		refs, total int
	}{
		{"hub", 151, 151},
		{"hub100", 100, 0},
		{"hub101", 101, 101},
	} {
		all := wantReferencedBy(snap, "main", tt.table)
		if len(all) != tt.refs {
			t.Fatalf("%s: the snapshot has %d references, want %d", tt.table, len(all), tt.refs)
		}
		data, err := s.TableJSON(context.Background(), shopDev, "main", tt.table)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 64<<10 {
			t.Errorf("%s: answer of %d bytes, over 64 KiB", tt.table, len(data))
		}
		a, err := readTableAnswer(t, s, shopDev, "main", tt.table)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(all[:min(100, len(all))], a.ReferencedBy); diff != "" {
			t.Errorf("%s: referencedBy mismatch (-want +got):\n%s", tt.table, diff)
		}
		if a.ReferencedByTotal != tt.total {
			t.Errorf("%s: referencedByTotal = %d, want %d", tt.table, a.ReferencedByTotal, tt.total)
		}
	}
	// The aux tables come first and name their connection; the table
	// with two keys to hub lists them in key order.
	a, err := readTableAnswer(t, s, shopDev, "main", "hub")
	if err != nil {
		t.Fatal(err)
	}
	if got := a.ReferencedBy[0]; got.Connection != "aux" || got.Table != "ref_000" {
		t.Errorf("first reference = %+v, want aux.ref_000", got)
	}
}

// odd holds what a JSON answer must escape, or must carry as it is:
// quotes, a backslash, control characters (a newline, a tab, U+001F, DEL,
// U+0000), Korean, an emoji, U+2028, and HTML's <>&.
const odd = "q\"uote b\\ack\\\\ n\nl t\tab \x1f\x7f 고객 😀 \u2028 <b>&amp;</b> '\\u0041' /*"

// oddSnapshot is a release whose every name and text holds odd.
func oddSnapshot() *snapshot.Snapshot {
	conn := "conn " + odd
	return &snapshot.Snapshot{
		Release: snapshot.Release{ID: "rel_42", Project: "shop", Environment: "dev", Version: 42, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:  snapshot.Origin{Source: snapshot.SourceHub, Digest: "sha256:" + strings.Repeat("9", 64), SyncedAt: "2026-11-02T00:00:00Z"},
		Connections: []snapshot.Connection{
			{Name: "main", Engine: "postgres " + odd}, {Name: conn},
		},
		Tables: []snapshot.Table{
			{
				Name: "tbl " + odd, Connection: conn, Comment: "comment " + odd + " nul\x00after",
				Columns: []snapshot.Column{
					{Name: "col " + odd, Type: "type " + odd, Comment: odd, Default: "'" + odd + "'",
						Enum: []string{odd, "", "<>&", `"`, `\`}},
					{Name: "id", Type: "int", Nullable: true, Comment: "\x00"},
				},
				PrimaryKey: []string{"col " + odd},
				ForeignKeys: []snapshot.ForeignKey{
					{Name: "fk " + odd, Columns: []string{"col " + odd}, RefConnection: "main", RefTable: "target " + odd,
						RefColumns: []string{"id " + odd}, OnDelete: "set \"null\" " + odd},
					{Columns: []string{"id", "col " + odd}, RefConnection: conn, RefTable: "tbl " + odd,
						RefColumns: []string{"col " + odd, "id"}},
				},
				Indexes: []snapshot.Index{{Name: "ix " + odd, Columns: []string{"col " + odd, "id"}, Unique: true}, {Columns: []string{odd}}},
			},
			{
				Name: "target " + odd, Connection: "main", Comment: odd,
				Columns:    []snapshot.Column{{Name: "id " + odd, Type: odd}, {Name: odd, Type: "x"}},
				PrimaryKey: []string{"id " + odd, odd},
			},
		},
		Logics: []snapshot.Logic{
			{
				Name: "odd/logic_1.x-y", Description: "description " + odd,
				SQL:    "SELECT '" + odd + "' -- " + odd + "\n\tFROM \"t\"",
				Params: []snapshot.Param{{Name: "p " + odd, Type: odd, Required: true}, {Name: "q"}},
				Auth:   snapshot.Auth{Required: true, Roles: []string{odd, "<admin>"}},
			},
			{Name: "logic " + odd, SQL: odd},
		},
	}
}

// TestAnswersEscapeText: every answer is valid JSON that decodes to
// exactly what was stored, whatever the text holds.
func TestAnswersEscapeText(t *testing.T) {
	s := openStore(t)
	snap := oddSnapshot()
	put(t, s, snap, true)
	checkWholeRelease(t, s, snap)
	for _, limit := range []int{1, 0} {
		tables, err := readTablesBy(t, s, shopDev, "", limit)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(sortedTables(snap), tables); diff != "" {
			t.Errorf("TablesPage(limit %d) mismatch (-want +got):\n%s", limit, diff)
		}
		tables, err = readTablesBy(t, s, shopDev, "conn "+odd, limit)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(filterTables(sortedTables(snap), "conn "+odd), tables); diff != "" {
			t.Errorf("TablesPage(conn, limit %d) mismatch (-want +got):\n%s", limit, diff)
		}
		logics, err := readLogicsBy(t, s, shopDev, limit)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(sortedLogics(snap), logics); diff != "" {
			t.Errorf("LogicsPage(limit %d) mismatch (-want +got):\n%s", limit, diff)
		}
	}
	// The target's referencedBy names the referencing connection.
	_, refs, err := readTable(t, s, shopDev, "main", "target "+odd)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 1 || refs[0].Connection != "conn "+odd {
		t.Errorf("referencedBy of the target = %+v, want one reference from connection %q", refs, "conn "+odd)
	}
	// A bare odd name is found too.
	if _, _, err := readTable(t, s, shopDev, "", "tbl "+odd); err != nil {
		t.Errorf("TableJSON by bare odd name: %v", err)
	}
	_, err = s.TableJSON(context.Background(), shopDev, "", "no "+odd)
	wantCode(t, err, NotFound)
}

func TestReleaseJSON(t *testing.T) {
	s := openStore(t)
	sample := sampleSnapshot()
	for _, r := range []struct {
		project, id, env string
		version          int64
	}{
		{"shop", "rel_40", "dev", 40},
		{"shop", "rel_41", "dev", 41},
		{"shop", "rel_41b", "dev", 41}, // same version: by id, descending
		{"shop", "rel_43", "dev", 43},  // newer than the current one
		{"shop", "rel_p1", "prod", 100},
		{"other", "rel_o", "dev", 99},
	} {
		put(t, s, smallSnapshot(r.project, r.id, r.env, r.version, "t", 1), false)
	}
	put(t, s, sample, true)
	if err := s.SetCurrent(context.Background(), "other", "dev", "rel_o"); err != nil {
		t.Fatal(err)
	}

	got, err := readRelease(t, s, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	want := &wireRelease{
		ID: "rel_42", Project: "shop", Environment: "dev", Version: 42,
		CreatedAt: sample.Release.CreatedAt, SyncedAt: sample.Origin.SyncedAt, Tables: 6, Logics: 3,
		SchemaProblems: 5, // lint_test.go: TestSampleFindings
		OtherReleases:  []wireOtherRelease{{"rel_43", 43}, {"rel_41b", 41}, {"rel_41", 41}, {"rel_40", 40}},
		// A postgres release indexed without an Analyzer is pending.
		AnalysisPending: true,
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("ReleaseJSON mismatch (-want +got):\n%s", diff)
	}

	// Alone in its project and environment: an empty list.
	got, err = readRelease(t, s, Target{Project: "other", Environment: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	want = &wireRelease{
		ID: "rel_o", Project: "other", Environment: "dev", Version: 99, CreatedAt: "2026-10-01T00:00:00Z",
		SyncedAt: "2026-10-01T00:00:01Z", Tables: 1, Logics: 1, OtherReleases: []wireOtherRelease{},
		AnalysisPending: true,
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("ReleaseJSON(other) mismatch (-want +got):\n%s", diff)
	}

	_, err = s.ReleaseJSON(context.Background(), Target{Project: "shop", Environment: "prod"})
	wantCode(t, err, NoRelease)
}

// TestReleaseJSONManyOtherReleases: release_info lists the 100 newest
// other releases, and (as qReleaseJSON's doc comment says)
// otherReleasesTotal counts them all when there are more.
func TestReleaseJSONManyOtherReleases(t *testing.T) {
	s := openStore(t)
	const others = 120
	for v := range others + 1 {
		put(t, s, smallSnapshot("shop", fmt.Sprintf("rel_%03d", v), "dev", int64(v), "t", 0), v == 60)
	}
	got, err := readRelease(t, s, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	var want []wireOtherRelease
	for v := others; v >= 0 && len(want) < 100; v-- {
		if v != 60 {
			want = append(want, wireOtherRelease{fmt.Sprintf("rel_%03d", v), int64(v)})
		}
	}
	if diff := gocmp.Diff(want, got.OtherReleases); diff != "" {
		t.Errorf("otherReleases mismatch (-want +got):\n%s", diff)
	}
	if got.OtherReleasesTotal != others {
		t.Errorf("otherReleasesTotal = %d, want %d", got.OtherReleasesTotal, others)
	}
}

// TestReplacedReleaseKeepsCurrent: a release stored again under its id
// gets a new row, and the current pointer moves to it.
func TestReplacedReleaseKeepsCurrent(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, smallSnapshot("shop", "rel_41", "dev", 41, "old", 2), false)
	put(t, s, smallSnapshot("other", "rel_42", "dev", 1, "o", 1), true) // the same id in another project
	put(t, s, sampleSnapshot(), true)
	oldRow := releaseRowID(t, s, "shop", "rel_42")

	v2 := smallSnapshot("shop", "rel_42", "dev", 43, "acct", 3)
	v2.Origin.Digest = "sha256:" + strings.Repeat("2", 64)
	put(t, s, v2, false) // not asked to become current: it stays current
	newRow := releaseRowID(t, s, "shop", "rel_42")
	if newRow == oldRow {
		t.Errorf("the replaced release kept row id %d; want a new one", oldRow)
	}
	wantPointers := []Pointer{
		{Project: "other", Environment: "dev", ID: "rel_42"},
		{Project: "shop", Environment: "dev", ID: "rel_42"},
	}
	ptrs, err := s.Pointers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(wantPointers, ptrs); diff != "" {
		t.Errorf("Pointers mismatch (-want +got):\n%s", diff)
	}
	var pointed int64
	if err := s.r.QueryRowContext(ctx, `SELECT release FROM current_releases WHERE project = 'shop' AND environment = 'dev'`).Scan(&pointed); err != nil {
		t.Fatal(err)
	}
	if pointed != newRow {
		t.Errorf("current_releases points at row %d, want the new row %d", pointed, newRow)
	}
	for _, table := range []string{"tables", "foreign_keys", "connections", "logics", "search_words", "search_names"} {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE release = ?`, oldRow).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d rows of the replaced release's old row %d left", table, n, oldRow)
		}
	}

	got, err := readRelease(t, s, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	want := &wireRelease{
		ID: "rel_42", Project: "shop", Environment: "dev", Version: 43, CreatedAt: v2.Release.CreatedAt,
		SyncedAt: v2.Origin.SyncedAt, Tables: 3, Logics: 1, OtherReleases: []wireOtherRelease{{"rel_41", 41}},
		AnalysisPending: true,
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("ReleaseJSON after replace mismatch (-want +got):\n%s", diff)
	}
	checkWholeRelease(t, s, v2)

	// Replacing a release that is not current leaves the pointer alone.
	put(t, s, smallSnapshot("shop", "rel_41", "dev", 41, "older", 1), false)
	if ri, err := s.Current(ctx, shopDev); err != nil || ri.ID != "rel_42" || ri.Version != 43 {
		t.Errorf("Current after replacing rel_41 = %s v%d, %v; want rel_42 v43", ri.ID, ri.Version, err)
	}
	ptrs, err = s.Pointers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(wantPointers, ptrs); diff != "" {
		t.Errorf("Pointers after replacing rel_41 mismatch (-want +got):\n%s", diff)
	}
	if n := foreignKeyViolations(t, s); n != 0 {
		t.Errorf("foreign_key_check: %d violations", n)
	}
}

// TestWriteReleaseAnyOrder sends a release's parts to WriteRelease in
// another order than PutRelease does: the release is the same.
func TestWriteReleaseAnyOrder(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	snap := sampleSnapshot()
	err := s.WriteRelease(ctx, WriteOptions{MakeCurrent: true}, func(w *ReleaseWriter) error {
		for i := len(snap.Logics) - 1; i >= 0; i-- {
			if err := w.Logic(&snap.Logics[i]); err != nil {
				return err
			}
		}
		for i := range snap.Tables {
			if err := w.Table(&snap.Tables[i]); err != nil {
				return err
			}
		}
		w.File(fileStateOf(snap))
		for _, c := range snap.Connections {
			if err := w.Connection(c); err != nil {
				return err
			}
		}
		w.Release(snap.Release, snap.Origin)
		return nil
	})
	if err != nil {
		t.Fatalf("WriteRelease: %v", err)
	}
	checkWholeRelease(t, s, snap)
	cur, err := s.Current(ctx, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(ReleaseInfo{Release: snap.Release, Origin: snap.Origin, Tables: 6, Logics: 3, Current: true}, cur); diff != "" {
		t.Errorf("Current mismatch (-want +got):\n%s", diff)
	}
	files, err := s.IndexedFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := gocmp.Diff(fileStateOf(snap), files[ReleaseKey{Project: "shop", ID: "rel_42"}].FileState); diff != "" {
		t.Errorf("IndexedFiles mismatch (-want +got):\n%s", diff)
	}
}

// TestWriteReleaseFillFails: when fill fails, or never names the release,
// nothing is written and the index is as before.
func TestWriteReleaseFillFails(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()
	put(t, s, sampleSnapshot(), true)
	before := rowCounts(t, s)

	boom := errors.New("boom")
	v2 := smallSnapshot("shop", "rel_42", "dev", 43, "n", 80)
	err := s.WriteRelease(ctx, WriteOptions{MakeCurrent: true}, func(w *ReleaseWriter) error {
		w.Release(v2.Release, v2.Origin)
		for i := range v2.Tables {
			if err := w.Table(&v2.Tables[i]); err != nil {
				return err
			}
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("WriteRelease with a failing fill: err = %v, want %v", err, boom)
	}
	err = s.WriteRelease(ctx, WriteOptions{MakeCurrent: true}, func(w *ReleaseWriter) error {
		return w.Table(&v2.Tables[0])
	})
	if err == nil {
		t.Error("WriteRelease of a release never named succeeded")
	}
	if diff := gocmp.Diff(before, rowCounts(t, s)); diff != "" {
		t.Errorf("index changed after failed writes (-want +got):\n%s", diff)
	}
	checkWholeRelease(t, s, sampleSnapshot())
}
