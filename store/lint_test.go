package store

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// wireFinding is a finding as release_check gives it.
type wireFinding struct {
	Code       string `json:"code"`
	Message    string `json:"message"`
	Table      string `json:"table,omitempty"`
	Connection string `json:"connection,omitempty"`
	Column     string `json:"column,omitempty"`
	Logic      string `json:"logic,omitempty"`
	Position   int    `json:"position,omitempty"`
}

// wireCheck is a release_check answer.
type wireCheck struct {
	Release         string        `json:"release"`
	Findings        []wireFinding `json:"findings"`
	CommentCoverage *float64      `json:"commentCoverage,omitempty"`
	Total           int64         `json:"total"`
	NextCursor      string        `json:"nextCursor,omitempty"`
	AnalysisPending bool          `json:"analysisPending,omitempty"`
}

// checkAll returns every finding of req, through CheckAll, with the first
// page's answer; a request without codes runs lint.DefaultRules.
func checkAll(tb testing.TB, s *Store, t Target, req CheckRequest) ([]wireFinding, wireCheck) {
	tb.Helper()
	if len(req.Codes) == 0 {
		req.Codes = lint.DefaultRules()
	}
	var all []wireFinding
	var first *wireCheck
	err := s.CheckAll(context.Background(), t, req, func(p *CheckPage) error {
		var page wireCheck
		if err := strictJSON(p.JSON(), &page); err != nil {
			return err
		}
		if first == nil {
			first = &page
		}
		all = append(all, page.Findings...)
		return nil
	})
	if err != nil {
		tb.Fatalf("CheckAll: %v", err)
	}
	return all, *first
}

func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// lintSnapshot is a release with planted problems, each beside a clean
// look-alike: keys covered by a composite index's leading columns, by the
// primary key, by a key's columns in another order; types written
// differently but equal; a table named in two connections; a referenced
// table or column the release lacks; a type not given.
func lintSnapshot() *snapshot.Snapshot {
	col := func(name, typ string) snapshot.Column { return snapshot.Column{Name: name, Type: typ, Comment: "c"} }
	fk := func(name string, cols []string, refConn, ref string, refCols []string) snapshot.ForeignKey {
		return snapshot.ForeignKey{Name: name, Columns: cols, RefConnection: refConn, RefTable: ref, RefColumns: refCols}
	}
	return &snapshot.Snapshot{
		Release:     snapshot.Release{ID: "rel_lint", Project: "shop", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:      snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("cd", 32), SyncedAt: "2026-11-02T09:30:00Z"},
		Connections: []snapshot.Connection{{Name: "main", Engine: "postgres"}, {Name: "analytics", Engine: "postgres"}},
		Tables: []snapshot.Table{
			{Name: "accounts", Connection: "main", Comment: "c",
				Columns: []snapshot.Column{col("id", "bigint")}, PrimaryKey: []string{"id"}},
			{Name: "users", Connection: "main", Comment: "c",
				Columns:    []snapshot.Column{col("id", "int4"), col("email", "varchar(255)"), col("invited_by", "INTEGER")},
				PrimaryKey: []string{"id"},
				// A key to the table itself, covered by an index.
				ForeignKeys: []snapshot.ForeignKey{fk("users_invited_by_fk", []string{"invited_by"}, "main", "users", []string{"id"})},
				Indexes: []snapshot.Index{{Name: "users_email_key", Columns: []string{"email"}, Unique: true},
					{Name: "users_invited_by_idx", Columns: []string{"invited_by"}}}},
			{Name: "orders", Connection: "main", Comment: "c",
				Columns: []snapshot.Column{col("id", "bigint"), col("user_id", "integer"), col("account_id", "int8"),
					col("created_at", "timestamptz"), col("coupon_id", "text"), col("region_code", "text")},
				PrimaryKey: []string{"id"},
				ForeignKeys: []snapshot.ForeignKey{
					// user_id: int4 written integer, covered by a composite
					// index's leading column; main.users, not analytics.users.
					fk("orders_user_fk", []string{"user_id"}, "", "users", []string{"id"}),
					// Planted: no index for account_id.
					fk("orders_account_fk", []string{"account_id"}, "main", "accounts", []string{"id"}),
					// Planted: the same key again.
					fk("orders_user_fk2", []string{"user_id"}, "main", "users", []string{"id"}),
					// coupons is not in the release: its types are not judged.
					fk("orders_coupon_fk", []string{"coupon_id"}, "main", "coupons", []string{"id"}),
					// accounts has no column code: not judged.
					fk("orders_region_fk", []string{"region_code"}, "main", "accounts", []string{"code"}),
				},
				Indexes: []snapshot.Index{{Name: "orders_user_created_idx", Columns: []string{"user_id", "created_at"}},
					{Name: "orders_coupon_idx", Columns: []string{"coupon_id"}},
					{Name: "orders_region_idx", Columns: []string{"region_code", "id"}}}},
			{Name: "order_lines", Connection: "main", Comment: "c",
				Columns:    []snapshot.Column{col("order_id", "int8"), col("line_no", "integer")},
				PrimaryKey: []string{"order_id", "line_no"},
				// Covered by the primary key; int8 is bigint.
				ForeignKeys: []snapshot.ForeignKey{fk("order_lines_order_fk", []string{"order_id"}, "main", "orders", []string{"id"})}},
			{Name: "returns", Connection: "main", Comment: "c",
				Columns:    []snapshot.Column{col("order_id", "bigint"), col("line_no", "int4"), col("returned_at", "timestamp with time zone")},
				PrimaryKey: []string{"order_id", "line_no", "returned_at"},
				// The key's columns lead the primary key in another order.
				ForeignKeys: []snapshot.ForeignKey{fk("returns_line_fk", []string{"line_no", "order_id"}, "main", "order_lines",
					[]string{"line_no", "order_id"})}},
			{Name: "shipments", Connection: "main", Comment: "c",
				Columns:    []snapshot.Column{col("id", "bigserial"), col("order_id", "bigint"), col("line_no", "smallint")},
				PrimaryKey: []string{"id"},
				ForeignKeys: []snapshot.ForeignKey{
					// Planted: an index on order_id only; line_no is smallint.
					fk("shipments_line_fk", []string{"order_id", "line_no"}, "main", "order_lines", []string{"order_id", "line_no"}),
					// Planted: the same pairs in another order, unnamed.
					{Columns: []string{"line_no", "order_id"}, RefTable: "order_lines", RefColumns: []string{"line_no", "order_id"}},
				},
				Indexes: []snapshot.Index{{Name: "shipments_order_idx", Columns: []string{"order_id"}}}},
			{Name: "payments", Connection: "main", Comment: "c",
				Columns:    []snapshot.Column{col("id", "uuid"), col("order_id", "integer"), col("created_at", "timestamptz"), col("note_id", "")},
				PrimaryKey: []string{"id"},
				ForeignKeys: []snapshot.ForeignKey{
					// Planted: integer to bigint, and the index holds
					// order_id second.
					fk("payments_order_fk", []string{"order_id"}, "main", "orders", []string{"id"}),
					// A type not given is not judged.
					fk("payments_note_fk", []string{"note_id"}, "main", "accounts", []string{"id"}),
				},
				Indexes: []snapshot.Index{{Name: "payments_created_order_idx", Columns: []string{"created_at", "order_id"}},
					{Name: "payments_note_idx", Columns: []string{"note_id"}}}},
			{Name: "sessions", Connection: "main", Comment: "c",
				Columns:    []snapshot.Column{col("token", "text"), col("user_id", "serial"), col("email", "character varying (255)")},
				PrimaryKey: []string{"token"},
				// serial is integer, character varying (255) is varchar(255).
				ForeignKeys: []snapshot.ForeignKey{fk("sessions_user_fk", []string{"user_id"}, "main", "users", []string{"id"}),
					fk("sessions_email_fk", []string{"email"}, "main", "users", []string{"email"})},
				Indexes: []snapshot.Index{{Name: "sessions_user_key", Columns: []string{"user_id"}, Unique: true},
					{Name: "sessions_email_idx", Columns: []string{"email"}}}},
			// Planted: no primary key.
			{Name: "audit log", Connection: "main", Comment: "c",
				Columns: []snapshot.Column{col("at", "timestamptz"), col("what", "text")}},
			{Name: "users", Connection: "analytics", Comment: "c",
				Columns: []snapshot.Column{col("id", "uuid")}, PrimaryKey: []string{"id"}},
			{Name: "daily", Connection: "analytics", Comment: "c",
				Columns:    []snapshot.Column{col("day", "date"), col("user_id", "bigint")},
				PrimaryKey: []string{"day", "user_id"},
				// Planted: bigint to main.users.id, int4; and user_id is
				// second in the primary key.
				ForeignKeys: []snapshot.ForeignKey{fk("daily_user_fk", []string{"user_id"}, "main", "users", []string{"id"})}},
		},
	}
}

// lintWant are the findings planted in lintSnapshot, in their order: by
// rule, then table, key and column.
var lintWant = []wireFinding{
	{Code: snapshot.CodeNoPrimaryKey, Table: "audit log", Connection: "main", Message: "table has no primary key"},
	{Code: snapshot.CodeFKWithoutIndex, Table: "orders", Connection: "main", Column: "account_id",
		Message: "foreign key orders_account_fk (account_id) to accounts (id) has no index that starts with its columns"},
	{Code: snapshot.CodeFKWithoutIndex, Table: "shipments", Connection: "main",
		Message: "foreign key shipments_line_fk (order_id, line_no) to order_lines (order_id, line_no) has no index that starts with its columns"},
	{Code: snapshot.CodeFKWithoutIndex, Table: "shipments", Connection: "main",
		Message: "foreign key (line_no, order_id) to order_lines (line_no, order_id) has no index that starts with its columns"},
	{Code: snapshot.CodeFKWithoutIndex, Table: "payments", Connection: "main", Column: "order_id",
		Message: "foreign key payments_order_fk (order_id) to orders (id) has no index that starts with its columns"},
	{Code: snapshot.CodeFKWithoutIndex, Table: "daily", Connection: "analytics", Column: "user_id",
		Message: "foreign key daily_user_fk (user_id) to main.users (id) has no index that starts with its columns"},
	{Code: snapshot.CodeFKTypeMismatch, Table: "shipments", Connection: "main", Column: "line_no",
		Message: "type smallint, but it references order_lines.line_no of type integer (foreign key shipments_line_fk)"},
	{Code: snapshot.CodeFKTypeMismatch, Table: "shipments", Connection: "main", Column: "line_no",
		Message: "type smallint, but it references order_lines.line_no of type integer (an unnamed foreign key)"},
	{Code: snapshot.CodeFKTypeMismatch, Table: "payments", Connection: "main", Column: "order_id",
		Message: "type integer, but it references orders.id of type bigint (foreign key payments_order_fk)"},
	{Code: snapshot.CodeFKTypeMismatch, Table: "daily", Connection: "analytics", Column: "user_id",
		Message: "type bigint, but it references main.users.id of type int4 (foreign key daily_user_fk)"},
	{Code: snapshot.CodeDuplicateForeignKey, Table: "orders", Connection: "main", Column: "user_id",
		Message: "foreign key orders_user_fk2 (user_id) to users (id) repeats foreign key orders_user_fk"},
	{Code: snapshot.CodeDuplicateForeignKey, Table: "shipments", Connection: "main",
		Message: "foreign key (line_no, order_id) to order_lines (line_no, order_id) repeats foreign key shipments_line_fk"},
}

// Each rule finds exactly what lintSnapshot plants, and nothing in its
// look-alikes.
func TestLintFindsPlanted(t *testing.T) {
	s := openStore(t)
	put(t, s, lintSnapshot(), true)
	got, first := checkAll(t, s, shopDev, CheckRequest{})
	if diff := gocmp.Diff(lintWant, got); diff != "" {
		t.Errorf("findings mismatch (-want +got):\n%s", diff)
	}
	if first.Release != "rel_lint" || first.Total != int64(len(lintWant)) || first.CommentCoverage != nil || first.NextCursor != "" {
		t.Errorf("answer: release %q, total %d, coverage %v, cursor %q; want rel_lint, %d, none, none",
			first.Release, first.Total, first.CommentCoverage, first.NextCursor, len(lintWant))
	}
	// The oracle of the row-count tests agrees.
	if n := schemaFindingCount(lintSnapshot()); n != len(lintWant) {
		t.Errorf("schemaFindingCount = %d, want %d", n, len(lintWant))
	}
	rel, err := readRelease(t, s, shopDev)
	if err != nil {
		t.Fatal(err)
	}
	if rel.SchemaProblems != len(lintWant) {
		t.Errorf("release_info schemaProblems = %d, want %d", rel.SchemaProblems, len(lintWant))
	}

	// One rule at a time: its findings only.
	for _, code := range []string{snapshot.CodeNoPrimaryKey, snapshot.CodeFKWithoutIndex, snapshot.CodeFKTypeMismatch, snapshot.CodeDuplicateForeignKey} {
		var want []wireFinding
		for _, f := range lintWant {
			if f.Code == code {
				want = append(want, f)
			}
		}
		got, first := checkAll(t, s, shopDev, CheckRequest{Codes: []string{code}})
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Errorf("%s: findings mismatch (-want +got):\n%s", code, diff)
		}
		if first.Total != int64(len(want)) {
			t.Errorf("%s: total %d, want %d", code, first.Total, len(want))
		}
	}
}

// The sample release's findings, which other tests count on.
func TestSampleFindings(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	got, _ := checkAll(t, s, shopDev, CheckRequest{})
	var codes []string
	for _, f := range got {
		codes = append(codes, f.Code+" "+f.Connection+"."+f.Table+"."+f.Column)
	}
	want := []string{
		"NO_PRIMARY_KEY analytics.events.",
		"FK_WITHOUT_INDEX main.users.invited_by",
		"FK_WITHOUT_INDEX main.purchases.user_id",
		"FK_WITHOUT_INDEX main.refunds.",
		"FK_WITHOUT_INDEX analytics.events.user_id",
	}
	if diff := gocmp.Diff(want, codes); diff != "" {
		t.Errorf("findings mismatch (-want +got):\n%s", diff)
	}
}

// The caller names the rules (lint.CheckRules checks them): none is an
// error, and a code of no schema rule is a logic problem's.
func TestCheckRules(t *testing.T) {
	s := openStore(t)
	put(t, s, lintSnapshot(), true)
	_, err := s.CheckJSON(context.Background(), shopDev, CheckRequest{})
	wantCode(t, err, InvalidArgument)
	// A logic code is a rule: nothing finds it yet.
	got, first := checkAll(t, s, shopDev, CheckRequest{Codes: []string{snapshot.CodeUnknownColumn}})
	if len(got) != 0 || first.Total != 0 {
		t.Errorf("UNKNOWN_COLUMN: %d findings, total %d; want none", len(got), first.Total)
	}
}

// schemaFindingCount counts the stored findings of snap's tables by the
// rules as SPEC §12 states them, written here apart from indexer/lint:
// the oracle of the row-count tests.
func schemaFindingCount(snap *snapshot.Snapshot) int {
	type ref struct{ conn, name string }
	tables := map[ref]*snapshot.Table{}
	for i := range snap.Tables {
		t := &snap.Tables[i]
		tables[ref{t.Connection, t.Name}] = t
	}
	typeOf := func(t *snapshot.Table, col string) (string, bool) {
		for _, c := range t.Columns {
			if c.Name == col {
				return c.Type, true
			}
		}
		return "", false
	}
	// leading: the first len(set(cols)) of index are that set.
	leading := func(cols, index []string) bool {
		set := slices.Compact(slices.Sorted(slices.Values(cols)))
		if len(index) < len(set) {
			return false
		}
		prefix := slices.Compact(slices.Sorted(slices.Values(index[:len(set)])))
		return slices.Equal(set, prefix)
	}
	n := 0
	for _, t := range snap.Tables {
		if len(t.PrimaryKey) == 0 {
			n++
		}
		for i, fk := range t.ForeignKeys {
			conn := cmp.Or(fk.RefConnection, t.Connection)
			covered := leading(fk.Columns, t.PrimaryKey)
			for _, ix := range t.Indexes {
				covered = covered || leading(fk.Columns, ix.Columns)
			}
			if !covered {
				n++
			}
			if rt := tables[ref{conn, fk.RefTable}]; rt != nil {
				for k, c := range fk.Columns {
					a, _ := typeOf(&t, c)
					b, ok := typeOf(rt, fk.RefColumns[k])
					if ok && a != "" && b != "" && lint.CanonicalType(a) != lint.CanonicalType(b) {
						n++
					}
				}
			}
			pairs := func(f snapshot.ForeignKey) string {
				var p []string
				for k := range f.Columns {
					p = append(p, f.Columns[k]+"="+f.RefColumns[k])
				}
				slices.Sort(p)
				return cmp.Or(f.RefConnection, t.Connection) + "." + f.RefTable + ":" + strings.Join(p, ",")
			}
			for _, earlier := range t.ForeignKeys[:i] {
				if pairs(earlier) == pairs(fk) {
					n++
					break
				}
			}
		}
	}
	return n
}
