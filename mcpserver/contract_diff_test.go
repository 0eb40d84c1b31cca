package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/answer"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// The contract (contract_test.go) for schema_diff and schema_join_path:
// their answers decode strictly into DiffOutput and JoinPathOutput,
// validate against the advertised output schemas, and are the JSON of
// what the Go types hold when built here, independently, from the
// snapshots (for diffs; join paths are checked against brute force in
// package store).

func TestContractDiffDemo(t *testing.T) {
	older, newer := demoSnapshots(t)
	checkDiffContract(t, demoStore(t), shopDev, older, newer)
}

func TestContractDiffSynthetic(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two 2,000-table releases")
	}
	a := storetest.Release(storetest.Size{Tables: 2_000, Logics: 400})
	b := storetest.Release(storetest.Size{Tables: 2_000, Logics: 400})
	b.Release.ID, b.Release.Version = "rel_big_2", 2
	for i := range b.Tables {
		tb := &b.Tables[i]
		last := &tb.Columns[len(tb.Columns)-1]
		switch {
		case i%50 == 0:
			last.Nullable = !last.Nullable
		case i%97 == 0:
			tb.Columns = append(tb.Columns, snapshot.Column{Name: "added_later", Type: "string", Comment: "new"})
		case i%89 == 0:
			tb.Columns = tb.Columns[:len(tb.Columns)-1]
		case i%131 == 0:
			tb.Comment += " (revised)"
		case i%151 == 0:
			tb.ForeignKeys = nil
		case i%173 == 0:
			tb.PrimaryKey = nil
		case i%67 == 0:
			last.Type, last.Default, last.Enum = "text", "'x'", []string{"x", "y"}
		}
	}
	b.Tables = slices.Delete(b.Tables, 10, 15)
	for i := range 5 {
		b.Tables = append(b.Tables, snapshot.Table{Name: fmt.Sprintf("zz_new_%d", i), Connection: "main",
			Columns: []snapshot.Column{{Name: "id", Type: "string"}}, PrimaryKey: []string{"id"}})
	}
	for i := range b.Logics {
		l := &b.Logics[i]
		switch {
		case i%40 == 0:
			l.SQL += " -- v2"
		case i%53 == 0:
			l.Params = append(l.Params, snapshot.Param{Name: "dry_run", Type: "boolean"})
		case i%61 == 0:
			l.Auth.Required, l.Description = false, ""
		}
	}
	b.Logics = slices.Delete(b.Logics, 1, 4)
	b.Logics = append(b.Logics, snapshot.Logic{Name: "zz/new", SQL: "SELECT 1"})

	st := openStore(t)
	putAnalysed(t, st, a, store.FileState{}, false)
	putCurrent(t, st, b)
	checkDiffContract(t, st, bigDev, a, b)
}

// checkDiffContract checks schema_diff both ways between a and b (both
// cached for target, b current), whole and cut by a limit, and
// schema_join_path between pairs of b's tables.
func checkDiffContract(t *testing.T, st *store.Store, target store.Target, a, b *snapshot.Snapshot) {
	t.Helper()
	srv := New(st, Options{Target: target, Version: "test"})
	t.Cleanup(srv.Shutdown)
	ctx := context.Background()
	schemas := outputSchemas(t, srv)
	as := map[*snapshot.Snapshot]map[string]*snapshot.Analysis{a: analyses(t, a), b: analyses(t, b)}
	for _, pair := range [][2]*snapshot.Snapshot{{a, b}, {b, a}} {
		for _, limit := range []int{store.MaxDiffLimit, 5} {
			in := DiffInput{From: Name(pair[0].Release.ID), To: Name(pair[1].Release.ID), Limit: limit}
			ans, err := srv.diff(ctx, &mcp.CallToolRequest{}, in)
			if err == nil {
				want := wantDiff(pair[0], pair[1], limit)
				want.Logics.Broken = wantBroken(pair[1], as[pair[0]], as[pair[1]])
				err = contractError(schemas["schema_diff"], ans, new(answer.DiffOutput), want)
			}
			if err != nil {
				t.Fatalf("schema_diff %+v: %v", in, err)
			}
		}
	}
	step := max(1, len(b.Tables)/25)
	for i := 0; i < len(b.Tables); i += step {
		for _, j := range []int{i + 1, len(b.Tables) - 1 - i} {
			from, to := b.Tables[i], b.Tables[j%len(b.Tables)]
			in := JoinPathInput{From: TableName(from.Connection + "." + from.Name), To: TableName(to.Connection + "." + to.Name)}
			ans, err := srv.joinPath(ctx, &mcp.CallToolRequest{}, in)
			if err != nil {
				t.Fatalf("schema_join_path %+v: %v", in, err)
			}
			jp, err := st.JoinPaths(ctx, target, store.JoinPathRequest{From: string(in.From), To: string(in.To)})
			if err != nil {
				t.Fatal(err)
			}
			want := JoinPathOutput{Paths: []JoinPath{}, Truncated: jp.Truncated}
			for _, p := range jp.Paths {
				want.Paths = append(want.Paths, JoinPath{Tables: p.Tables, Joins: p.Joins, SQL: p.SQL})
			}
			if err := contractError(schemas["schema_join_path"], ans, new(JoinPathOutput), want); err != nil {
				t.Fatalf("schema_join_path %+v: %v", in, err)
			}
		}
	}
}

// wantBroken is logics.broken from the analyses of two releases: the
// logics of b, by name, with the problems whose code and message its
// namesake in a did not have (at most 10 each, problemsTotal counting
// them all).
func wantBroken(b *snapshot.Snapshot, as, bs map[string]*snapshot.Analysis) []answer.BrokenLogic {
	var out []answer.BrokenLogic
	names := []string{}
	for _, l := range b.Logics {
		names = append(names, l.Name)
	}
	slices.Sort(names)
	for _, name := range names {
		had := map[[2]string]bool{}
		if old := as[name]; old != nil {
			for _, p := range old.Problems {
				had[[2]string{p.Code, p.Message}] = true
			}
		}
		var bl answer.BrokenLogic
		for _, p := range bs[name].Problems {
			if !had[[2]string{p.Code, p.Message}] {
				bl.ProblemsTotal++
				if len(bl.Problems) < 10 {
					bl.Problems = append(bl.Problems, snapshot.Problem(p))
				}
			}
		}
		if bl.ProblemsTotal > 0 {
			bl.Name = name
			if bl.ProblemsTotal == len(bl.Problems) {
				bl.ProblemsTotal = 0
			}
			out = append(out, bl)
		}
	}
	return out
}

// wantDiff builds the schema_diff answer from a to b as docs/tools.md
// describes it, with at most limit entries.
func wantDiff(a, b *snapshot.Snapshot, limit int) answer.DiffOutput {
	out := answer.DiffOutput{From: answer.ReleaseRef{ID: a.Release.ID, Version: a.Release.Version}, To: answer.ReleaseRef{ID: b.Release.ID, Version: b.Release.Version},
		Tables: &answer.TablesDiff{}, Logics: &answer.LogicsDiff{}}
	n := 0
	full := func() bool {
		if n == limit {
			out.More = true
		}
		n++
		return out.More
	}
	type key struct{ conn, name string }
	ta, tb := map[key]*snapshot.Table{}, map[key]*snapshot.Table{}
	var keys []key
	for i := range a.Tables {
		k := key{a.Tables[i].Connection, a.Tables[i].Name}
		ta[k], keys = &a.Tables[i], append(keys, k)
	}
	for i := range b.Tables {
		k := key{b.Tables[i].Connection, b.Tables[i].Name}
		if tb[k] = &b.Tables[i]; ta[k] == nil {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y key) int { return cmp.Or(cmp.Compare(x.conn, y.conn), cmp.Compare(x.name, y.name)) })
	for _, k := range keys {
		ref := answer.TableRef{Name: k.name, Connection: k.conn}
		switch old, now := ta[k], tb[k]; {
		case old == nil:
			if full() {
				return out
			}
			out.Tables.Added = append(out.Tables.Added, ref)
		case now == nil:
			if full() {
				return out
			}
			out.Tables.Removed = append(out.Tables.Removed, ref)
		default:
			if c := wantTableChange(old, now); c != nil {
				if full() {
					return out
				}
				out.Tables.Changed = append(out.Tables.Changed, *c)
			}
		}
	}
	la, lb := map[string]*snapshot.Logic{}, map[string]*snapshot.Logic{}
	var names []string
	for i := range a.Logics {
		la[a.Logics[i].Name], names = &a.Logics[i], append(names, a.Logics[i].Name)
	}
	for i := range b.Logics {
		if lb[b.Logics[i].Name] = &b.Logics[i]; la[b.Logics[i].Name] == nil {
			names = append(names, b.Logics[i].Name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		switch old, now := la[name], lb[name]; {
		case old == nil:
			if full() {
				return out
			}
			out.Logics.Added = append(out.Logics.Added, name)
		case now == nil:
			if full() {
				return out
			}
			out.Logics.Removed = append(out.Logics.Removed, name)
		default:
			if c := wantLogicChange(old, now); c != nil {
				if full() {
					return out
				}
				out.Logics.Changed = append(out.Logics.Changed, *c)
			}
		}
	}
	return out
}

func wantTableChange(a, b *snapshot.Table) *answer.TableChange {
	c := answer.TableChange{Name: b.Name, Connection: b.Connection}
	if a.Comment != b.Comment {
		c.Comment = &answer.TextChange{From: a.Comment, To: b.Comment}
	}
	cols := answer.ColumnsDiff{}
	old := map[string]snapshot.Column{}
	for _, col := range a.Columns {
		old[col.Name] = col
	}
	for _, nc := range b.Columns {
		oc, ok := old[nc.Name]
		if !ok {
			cols.Added = append(cols.Added, nc.Name)
			continue
		}
		delete(old, nc.Name)
		ch := answer.ColumnChange{Name: nc.Name}
		if oc.Type != nc.Type {
			ch.From.Type, ch.To.Type = &oc.Type, &nc.Type
		}
		if oc.Nullable != nc.Nullable {
			ch.From.Nullable, ch.To.Nullable = &oc.Nullable, &nc.Nullable
		}
		if oc.Default != nc.Default {
			ch.From.Default, ch.To.Default = &oc.Default, &nc.Default
		}
		if !slices.Equal(oc.Enum, nc.Enum) {
			from, to := append([]string{}, oc.Enum...), append([]string{}, nc.Enum...)
			ch.From.Enum, ch.To.Enum = &from, &to
		}
		if oc.Comment != nc.Comment {
			ch.From.Comment, ch.To.Comment = &oc.Comment, &nc.Comment
		}
		if ch.From != (answer.ColumnAttrs{}) {
			cols.Changed = append(cols.Changed, ch)
		}
	}
	for _, oc := range a.Columns {
		if _, ok := old[oc.Name]; ok {
			cols.Removed = append(cols.Removed, oc.Name)
		}
	}
	if cols.Added != nil || cols.Removed != nil || cols.Changed != nil {
		c.Columns = &cols
	}
	if !slices.Equal(a.PrimaryKey, b.PrimaryKey) {
		c.PrimaryKey = &answer.KeyChange{From: append([]string{}, a.PrimaryKey...), To: append([]string{}, b.PrimaryKey...)}
	}
	ta, tb := wantTable(a, nil), wantTable(b, nil)
	if added, removed := wantParts(ta.ForeignKeys, tb.ForeignKeys); added != nil || removed != nil {
		c.ForeignKeys = &answer.ForeignKeysDiff{Added: added, Removed: removed}
	}
	if added, removed := wantParts(ta.Indexes, tb.Indexes); added != nil || removed != nil {
		c.Indexes = &answer.IndexesDiff{Added: added, Removed: removed}
	}
	if c.Comment == nil && c.Columns == nil && c.PrimaryKey == nil && c.ForeignKeys == nil && c.Indexes == nil {
		return nil
	}
	return &c
}

// wantParts compares two lists whole, as multisets.
func wantParts[T any](a, b []T) (added, removed []T) {
	enc := func(v T) string { j, _ := json.Marshal(v); return string(j) }
	count := map[string]int{}
	for _, v := range a {
		count[enc(v)]++
	}
	for _, v := range b {
		if count[enc(v)] > 0 {
			count[enc(v)]--
		} else {
			added = append(added, v)
		}
	}
	for _, v := range a {
		if count[enc(v)] > 0 {
			count[enc(v)]--
			removed = append(removed, v)
		}
	}
	return added, removed
}

func wantLogicChange(a, b *snapshot.Logic) *answer.LogicChange {
	c := answer.LogicChange{Name: b.Name, Fields: []string{}}
	if a.SQL != b.SQL {
		c.SQL, c.Fields = &answer.TextChange{From: a.SQL, To: b.SQL}, append(c.Fields, "sql")
	}
	p := answer.ParamsDiff{}
	old := map[string]snapshot.Param{}
	for _, op := range a.Params {
		old[op.Name] = op
	}
	for _, np := range b.Params {
		op, ok := old[np.Name]
		if !ok {
			p.Added = append(p.Added, np.Name)
			continue
		}
		delete(old, np.Name)
		ch := answer.ParamChange{Name: np.Name}
		if op.Type != np.Type {
			ch.From.Type, ch.To.Type = &op.Type, &np.Type
		}
		if op.Required != np.Required {
			ch.From.Required, ch.To.Required = &op.Required, &np.Required
		}
		if ch.From != (answer.ParamAttrs{}) {
			p.Changed = append(p.Changed, ch)
		}
	}
	for _, op := range a.Params {
		if _, ok := old[op.Name]; ok {
			p.Removed = append(p.Removed, op.Name)
		}
	}
	if p.Added != nil || p.Removed != nil || p.Changed != nil {
		c.Params, c.Fields = &p, append(c.Fields, "params")
	}
	wa, wb := wantLogic(a), wantLogic(b)
	if wa.Auth.Required != wb.Auth.Required || !slices.Equal(slices.Sorted(slices.Values(wa.Auth.Roles)), slices.Sorted(slices.Values(wb.Auth.Roles))) {
		c.Auth, c.Fields = &answer.AuthChange{From: wa.Auth, To: wb.Auth}, append(c.Fields, "auth")
	}
	if a.Description != b.Description {
		c.Description, c.Fields = &answer.TextChange{From: a.Description, To: b.Description}, append(c.Fields, "description")
	}
	if len(c.Fields) == 0 {
		return nil
	}
	return &c
}
