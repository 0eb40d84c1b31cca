package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// wantFindings lists the findings of snap for codes (the default rules
// when none), as SPEC §12 states the rules, computed here apart from
// package store: code, table, connection and column of each, in
// release_check's order (by rule, then table, key and column; a table's
// MISSING_COMMENT before its columns'). Messages are the store's own
// wording, checked by its tests; the caller takes them from the answer.
// Types compare as written: the fixtures write equal types alike (the
// store's tests cover int4 and integer).
func wantFindings(snap *snapshot.Snapshot, codes []string) []Finding {
	if len(codes) == 0 {
		codes = lint.DefaultRules()
	}
	type ref struct{ conn, name string }
	tables := map[ref]*snapshot.Table{}
	for i := range snap.Tables {
		tables[ref{snap.Tables[i].Connection, snap.Tables[i].Name}] = &snap.Tables[i]
	}
	typeOf := func(t *snapshot.Table, name string) (string, bool) {
		for _, c := range t.Columns {
			if c.Name == name {
				return c.Type, true
			}
		}
		return "", false
	}
	leading := func(cols, index []string) bool {
		set := slices.Compact(slices.Sorted(slices.Values(cols)))
		return len(index) >= len(set) && slices.Equal(set, slices.Compact(slices.Sorted(slices.Values(index[:len(set)]))))
	}
	one := func(cols []string) string {
		if len(cols) == 1 {
			return cols[0]
		}
		return ""
	}
	signature := func(t *snapshot.Table, fk snapshot.ForeignKey) string {
		var p []string
		for k := range fk.Columns {
			p = append(p, fk.Columns[k]+"\x00"+fk.RefColumns[k])
		}
		slices.Sort(p)
		return cmp.Or(fk.RefConnection, t.Connection) + "\x01" + fk.RefTable + "\x01" + strings.Join(p, "\x01")
	}
	var out []Finding
	add := func(code string, t *snapshot.Table, column string) {
		out = append(out, Finding{Code: code, Table: t.Name, Connection: t.Connection, Column: column})
	}
	for _, code := range lint.RuleCodes() { // in rule order
		if !slices.Contains(codes, code) {
			continue
		}
		for i := range snap.Tables {
			t := &snap.Tables[i]
			switch code {
			case snapshot.CodeNoPrimaryKey:
				if len(t.PrimaryKey) == 0 {
					add(code, t, "")
				}
			case snapshot.CodeFKWithoutIndex:
				for _, fk := range t.ForeignKeys {
					covered := leading(fk.Columns, t.PrimaryKey)
					for _, ix := range t.Indexes {
						covered = covered || leading(fk.Columns, ix.Columns)
					}
					if !covered {
						add(code, t, one(fk.Columns))
					}
				}
			case snapshot.CodeFKTypeMismatch:
				for _, fk := range t.ForeignKeys {
					rt := tables[ref{cmp.Or(fk.RefConnection, t.Connection), fk.RefTable}]
					for k, c := range fk.Columns {
						a, _ := typeOf(t, c)
						if rt == nil {
							continue
						}
						if b, ok := typeOf(rt, fk.RefColumns[k]); ok && a != "" && b != "" && a != b {
							add(code, t, c)
						}
					}
				}
			case snapshot.CodeDuplicateForeignKey:
				for i, fk := range t.ForeignKeys {
					if slices.ContainsFunc(t.ForeignKeys[:i], func(e snapshot.ForeignKey) bool { return signature(t, e) == signature(t, fk) }) {
						add(code, t, one(fk.Columns))
					}
				}
			case snapshot.CodeMissingComment:
				blank := func(s string) bool { return strings.Trim(s, " \t\n\r") == "" }
				if blank(t.Comment) {
					add(code, t, "")
				}
				for _, c := range t.Columns {
					if blank(c.Comment) {
						add(code, t, c.Name)
					}
				}
			}
		}
	}
	return out
}

// wantLogicFindings are the findings of the logic problems of snap (its
// analysis in memory) of codes (none: the default rules), after the
// schema's: by logic in the snapshot's order, then in the problems' order.
func wantLogicFindings(tb testing.TB, snap *snapshot.Snapshot, codes []string) []Finding {
	if len(codes) == 0 {
		codes = lint.DefaultRules()
	}
	as := analyses(tb, snap)
	var out []Finding
	for _, l := range snap.Logics {
		if a := as[l.Name]; a != nil {
			for _, p := range a.Problems {
				if slices.Contains(codes, p.Code) {
					out = append(out, Finding{Code: p.Code, Message: p.Message, Logic: l.Name, Position: p.Position})
				}
			}
		}
	}
	return out
}

// wantCoverage is commentCoverage of snap: the per cent of its tables
// and columns with a comment, to one decimal.
func wantCoverage(snap *snapshot.Snapshot) float64 {
	all, commented := 0, 0
	for _, t := range snap.Tables {
		all++
		if strings.Trim(t.Comment, " \t\n\r") != "" {
			commented++
		}
		for _, c := range t.Columns {
			all++
			if strings.Trim(c.Comment, " \t\n\r") != "" {
				commented++
			}
		}
	}
	if all == 0 {
		return 100
	}
	return math.Round(float64(commented)*1000/float64(all)) / 10
}

// checkCheckContract pages through release_check's findings of snap, by
// default and of each rule, and holds every page to its Go type, its
// output schema and wantFindings.
func checkCheckContract(t *testing.T, srv *Server, schema *jsonschema.Resolved, snap *snapshot.Snapshot) {
	t.Helper()
	ctx := context.Background()
	for _, code := range append([]string{""}, lint.RuleCodes()...) {
		var codes []string
		if code != "" {
			codes = []string{code}
		}
		want := append(wantFindings(snap, codes), wantLogicFindings(t, snap, codes)...)
		var coverage *float64
		if code == snapshot.CodeMissingComment {
			v := wantCoverage(snap)
			coverage = &v
		}
		from := 0
		for cursor, pages := "", 0; ; pages++ {
			answer, err := srv.check(ctx, &mcp.CallToolRequest{}, CheckInput{Code: RuleCode(code), Cursor: Cursor(cursor)})
			if err != nil {
				t.Fatalf("release_check %q, page %d: %v", code, pages, err)
			}
			var got CheckOutput
			if err := json.Unmarshal(answer, &got); err != nil {
				t.Fatal(err)
			}
			if from+len(got.Findings) > len(want) {
				t.Fatalf("release_check %q: more findings than the %d wanted", code, len(want))
			}
			page := CheckOutput{Release: snap.Release.ID, Findings: slices.Clone(want[from : from+len(got.Findings)]),
				CommentCoverage: coverage, Total: len(want), NextCursor: got.NextCursor}
			for i := range page.Findings {
				page.Findings[i].Message = got.Findings[i].Message // the store's wording
				if got.Findings[i].Message == "" {
					t.Fatalf("release_check %q: a finding without a message: %+v", code, got.Findings[i])
				}
			}
			if page.Findings == nil {
				page.Findings = []Finding{}
			}
			if err := contractError(schema, answer, new(CheckOutput), page); err != nil {
				t.Fatalf("release_check %q, page %d: %v", code, pages, err)
			}
			from += len(got.Findings)
			if cursor = got.NextCursor; cursor == "" {
				break
			}
			if len(got.Findings) == 0 {
				t.Fatalf("release_check %q, page %d: an empty page with a nextCursor", code, pages)
			}
		}
		if from != len(want) {
			t.Fatalf("release_check %q: %d findings, want %d", code, from, len(want))
		}
	}
}

// The tool through MCP: the shop's findings, one rule, MISSING_COMMENT
// with its coverage, an unknown code.
func TestReleaseCheckTool(t *testing.T) {
	cs := shopSession(t)
	got := success[CheckOutput](t, call(t, cs, "release_check", map[string]any{}))
	var lines []string
	for _, f := range got.Findings {
		lines = append(lines, fmt.Sprintf("%s %s.%s.%s", f.Code, f.Connection, f.Table, f.Column))
	}
	want := []string{
		"FK_WITHOUT_INDEX main.purchases.user_id",
		"FK_WITHOUT_INDEX main.purchases.item_id",
		"FK_WITHOUT_INDEX main.order_lines.item_id",
		"FK_WITHOUT_INDEX analytics.users.user_id",
		"MISSING_COLUMN ..", // purchase_item's INSERT leaves out id and created_at
		"MISSING_COLUMN ..",
	}
	if !slices.Equal(lines, want) || got.Total != 6 || got.Release != "rel_42" || got.CommentCoverage != nil {
		t.Errorf("release_check {}: %v, total %d, release %q, coverage %v; want %v, 6, rel_42, none",
			lines, got.Total, got.Release, got.CommentCoverage, want)
	}
	info := success[ReleaseInfo](t, call(t, cs, "release_info", map[string]any{}))
	if info.SchemaProblems != 4 {
		t.Errorf("release_info schemaProblems = %d, want 4", info.SchemaProblems)
	}

	none := success[CheckOutput](t, call(t, cs, "release_check", map[string]any{"code": "NO_PRIMARY_KEY"}))
	if len(none.Findings) != 0 || none.Total != 0 {
		t.Errorf("NO_PRIMARY_KEY: %+v, want none", none)
	}
	mc := success[CheckOutput](t, call(t, cs, "release_check", map[string]any{"code": "MISSING_COMMENT"}))
	if mc.CommentCoverage == nil || len(mc.Findings) != mc.Total || mc.Total == 0 {
		t.Errorf("MISSING_COMMENT: %d findings, total %d, coverage %v", len(mc.Findings), mc.Total, mc.CommentCoverage)
	}

	msg := wantCode(t, call(t, cs, "release_check", map[string]any{"code": "NO_INDEX"}), store.InvalidArgument)
	for _, code := range lint.RuleCodes() {
		if !strings.Contains(msg, code) {
			t.Errorf("the INVALID_ARGUMENT message %q does not list %s", msg, code)
		}
	}
}
