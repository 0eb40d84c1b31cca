package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// commentSnapshot is a release whose comments are there, missing or
// blank, in two connections.
func commentSnapshot() *snapshot.Snapshot {
	return &snapshot.Snapshot{
		Release:     snapshot.Release{ID: "rel_c", Project: "shop", Environment: "dev", Version: 1, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:      snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("ef", 32), SyncedAt: "2026-11-02T09:30:00Z"},
		Connections: []snapshot.Connection{{Name: "main"}, {Name: "analytics"}},
		Tables: []snapshot.Table{
			{Name: "users", Connection: "main", Comment: "People",
				Columns: []snapshot.Column{{Name: "id", Type: "int", Comment: "key"}, {Name: "email", Type: "text"},
					{Name: "note", Type: "text", Comment: " \t\n"}},
				PrimaryKey: []string{"id"}},
			{Name: "posts", Connection: "main", Comment: "\r\n",
				Columns:    []snapshot.Column{{Name: "id", Type: "int", Comment: "key"}, {Name: "body", Type: "text", Comment: "Markdown"}},
				PrimaryKey: []string{"id"}},
			{Name: "empty", Connection: "analytics", PrimaryKey: nil},
			{Name: "users", Connection: "analytics", Comment: "Rollups",
				Columns: []snapshot.Column{{Name: "day", Type: "date"}}, PrimaryKey: []string{"day"}},
		},
	}
}

func TestMissingComment(t *testing.T) {
	s := openStore(t)
	put(t, s, commentSnapshot(), true)
	got, first := checkAll(t, s, shopDev, CheckRequest{Codes: []string{snapshot.CodeMissingComment}})
	tableMsg, columnMsg := "table has no comment", "column has no comment"
	want := []wireFinding{
		{Code: snapshot.CodeMissingComment, Table: "users", Connection: "main", Column: "email", Message: columnMsg},
		{Code: snapshot.CodeMissingComment, Table: "users", Connection: "main", Column: "note", Message: columnMsg},
		{Code: snapshot.CodeMissingComment, Table: "posts", Connection: "main", Message: tableMsg},
		{Code: snapshot.CodeMissingComment, Table: "empty", Connection: "analytics", Message: tableMsg},
		{Code: snapshot.CodeMissingComment, Table: "users", Connection: "analytics", Column: "day", Message: columnMsg},
	}
	if diff := gocmp.Diff(want, got); diff != "" {
		t.Errorf("findings mismatch (-want +got):\n%s", diff)
	}
	// 4 tables and 6 columns; 2 tables and 3 columns have a comment.
	if first.CommentCoverage == nil || *first.CommentCoverage != 50 || first.Total != 5 {
		t.Errorf("commentCoverage %v, total %d; want 50, 5", first.CommentCoverage, first.Total)
	}

	// With the default rules too: the stored findings come first.
	got, first = checkAll(t, s, shopDev, CheckRequest{Codes: lint.RuleCodes()})
	if len(got) != 6 || got[0].Code != snapshot.CodeNoPrimaryKey || got[0].Table != "empty" ||
		gocmp.Diff(want, got[1:]) != "" || first.Total != 6 {
		t.Errorf("every rule: %d findings, total %d: %+v", len(got), first.Total, got)
	}
}

// findingsSnapshot has n tables whose findings are many and whose names are
// long: each table has no comment, no primary key, a foreign key without
// an index, and two columns without a comment.
func findingsSnapshot(id string, n, nameLen int) *snapshot.Snapshot {
	snap := &snapshot.Snapshot{
		Release:     snapshot.Release{ID: id, Project: "shop", Environment: "dev", Version: 7, CreatedAt: "2026-11-01T10:00:00Z"},
		Origin:      snapshot.Origin{Source: snapshot.SourceImport, Digest: fmt.Sprintf("sha256:%032x%032x", n, nameLen), SyncedAt: "2026-11-02T09:30:00Z"},
		Connections: []snapshot.Connection{{Name: "main"}},
	}
	pad := strings.Repeat("x", max(0, nameLen-8))
	for i := range n {
		name := fmt.Sprintf("t%s_%05d", pad, i)
		snap.Tables = append(snap.Tables, snapshot.Table{Name: name, Connection: "main",
			Columns: []snapshot.Column{{Name: "a" + pad, Type: "int"}, {Name: "b" + pad, Type: "int"}},
			ForeignKeys: []snapshot.ForeignKey{{Name: name + "_fk", Columns: []string{"b" + pad}, RefTable: fmt.Sprintf("t%s_%05d", pad, (i+1)%n),
				RefColumns: []string{"a" + pad}}}})
	}
	return snap
}

// Paging returns every finding exactly once, in the order of one pass,
// each page within its limit and the answer budget; a cursor pages only
// the rules and the release it was made for.
func TestCheckPaging(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	put(t, s, findingsSnapshot("rel_p", 300, 8), true)
	every := lint.RuleCodes()
	whole, first := checkAll(t, s, shopDev, CheckRequest{Codes: every})
	if len(whole) != 300*5 || first.Total != 300*5 {
		t.Fatalf("one pass: %d findings, total %d; want 1500", len(whole), first.Total)
	}
	for _, limit := range []int{1, 7, 299, 300, 301} {
		var paged []wireFinding
		var cursors []string
		for cursor := ""; ; {
			answer, err := s.CheckJSON(ctx, shopDev, CheckRequest{Codes: every, PageRequest: PageRequest{Cursor: cursor, Limit: limit}})
			if err != nil {
				t.Fatalf("limit %d, page %d: %v", limit, len(cursors), err)
			}
			var page wireCheck
			if err := strictJSON(answer, &page); err != nil {
				t.Fatal(err)
			}
			if len(page.Findings) == 0 || len(page.Findings) > limit || page.Total != 1500 {
				t.Fatalf("limit %d, page %d: %d findings, total %d", limit, len(cursors), len(page.Findings), page.Total)
			}
			paged = append(paged, page.Findings...)
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
			cursors = append(cursors, cursor)
		}
		if diff := gocmp.Diff(whole, paged); diff != "" {
			t.Fatalf("limit %d: pages differ from one pass (-whole +paged):\n%s", limit, diff)
		}
		if limit == 7 {
			// A cursor of other rules is refused.
			_, err := s.CheckJSON(ctx, shopDev, CheckRequest{Codes: []string{snapshot.CodeMissingComment},
				PageRequest: PageRequest{Cursor: cursors[0], Limit: limit}})
			wantCode(t, err, InvalidArgument)
		}
	}

	// Long names: a default page stays within the answer budget.
	put(t, s, findingsSnapshot("rel_p", 300, 1000), true)
	answer, err := s.CheckJSON(ctx, shopDev, CheckRequest{Codes: every})
	if err != nil {
		t.Fatal(err)
	}
	var page wireCheck
	if err := strictJSON(answer, &page); err != nil {
		t.Fatal(err)
	}
	if len(answer) > AnswerBudget || page.NextCursor == "" || len(page.Findings) < 10 {
		t.Errorf("a page of long names: %d bytes, %d findings, cursor %q; want at most %d bytes and more to come",
			len(answer), len(page.Findings), page.NextCursor, AnswerBudget)
	}

	// The release changed: its cursors are refused.
	put(t, s, findingsSnapshot("rel_p", 10, 8), true)
	_, err = s.CheckJSON(ctx, shopDev, CheckRequest{Codes: every, PageRequest: PageRequest{Cursor: page.NextCursor}})
	wantCode(t, err, InvalidArgument)
	if !strings.Contains(ErrorMessage(err), "release changed") {
		t.Errorf("message %q should say the release changed", ErrorMessage(err))
	}
	for _, bad := range []string{"x", "eyJ9", cursor{list: "tables", release: "r"}.encode()} {
		_, err = s.CheckJSON(ctx, shopDev, CheckRequest{Codes: lint.DefaultRules(), PageRequest: PageRequest{Cursor: bad}})
		wantCode(t, err, InvalidArgument)
	}
}

// A cached release other than the current one can be checked by id; an
// unknown one is NOT_FOUND.
func TestCheckRelease(t *testing.T) {
	s := openStore(t)
	put(t, s, lintSnapshot(), false)
	put(t, s, commentSnapshot(), true)
	got, first := checkAll(t, s, shopDev, CheckRequest{Release: "rel_lint"})
	if first.Release != "rel_lint" || len(got) != len(lintWant) {
		t.Errorf("rel_lint: release %q, %d findings; want %d", first.Release, len(got), len(lintWant))
	}
	_, err := s.CheckJSON(context.Background(), shopDev, CheckRequest{Codes: lint.DefaultRules(), Release: "rel_9"})
	wantCode(t, err, NotFound)
	_, err = s.CheckJSON(context.Background(), Target{Project: "shop", Environment: "prod"}, CheckRequest{Codes: lint.DefaultRules()})
	wantCode(t, err, NoRelease)
}
