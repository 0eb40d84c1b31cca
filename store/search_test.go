package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/migrations"
	"github.com/hubsnap/hubsnap/store/cksumvfs"
)

// searchOK runs a search that must succeed.
func searchOK(tb testing.TB, s *Store, t Target, q SearchQuery) SearchResult {
	tb.Helper()
	res, err := s.Search(context.Background(), t, q)
	if err != nil {
		tb.Fatalf("Search(%+v, %q, kinds %v, limit %d): %v", t, q.Text, q.Kinds, q.Limit, err)
	}
	return res
}

// wantHits fails the test unless the search finds exactly want, in order,
// with More as given.
func wantHits(tb testing.TB, s *Store, t Target, q SearchQuery, want []Hit, more bool) {
	tb.Helper()
	res := searchOK(tb, s, t, q)
	if diff := cmp.Diff(want, res.Hits, cmpopts.EquateEmpty()); diff != "" {
		tb.Errorf("Search(%q, kinds %v, limit %d) hits mismatch (-want +got):\n%s", q.Text, q.Kinds, q.Limit, diff)
	}
	if res.More != more {
		tb.Errorf("Search(%q, kinds %v, limit %d).More = %v, want %v", q.Text, q.Kinds, q.Limit, res.More, more)
	}
}

// Hit constructors, to keep expectations short.
func tableHit(conn, table, matched, text string) Hit {
	return Hit{Kind: KindTable, Connection: conn, Table: table, Matched: matched, Text: text}
}

func columnHit(conn, table, column, matched, text string) Hit {
	return Hit{Kind: KindColumn, Connection: conn, Table: table, Column: column, Matched: matched, Text: text}
}

func logicHit(name, matched, text string) Hit {
	return Hit{Kind: KindLogic, Logic: name, Matched: matched, Text: text}
}

// searchSnapshot is a bare release of project p, environment dev, with the
// given tables and logics, all tables in connection main unless they say
// otherwise.
func searchSnapshot(id string, tables []snapshot.Table, logics []snapshot.Logic) *snapshot.Snapshot {
	snap := &snapshot.Snapshot{
		Release:     snapshot.Release{ID: id, Project: "p", Environment: "dev", Version: 1, CreatedAt: "2026-10-01T00:00:00Z"},
		Origin:      snapshot.Origin{Source: snapshot.SourceImport, Digest: "sha256:" + strings.Repeat("1", 64), SyncedAt: "2026-10-01T00:00:01Z"},
		Connections: []snapshot.Connection{{Name: "main", Engine: "postgres"}, {Name: "archive", Engine: "postgres"}},
		Tables:      tables,
		Logics:      logics,
	}
	for i := range snap.Tables {
		if snap.Tables[i].Connection == "" {
			snap.Tables[i].Connection = "main"
		}
	}
	return snap
}

var pDev = Target{Project: "p", Environment: "dev"}

// cols makes columns of type text from names.
func cols(names ...string) []snapshot.Column {
	out := make([]snapshot.Column, len(names))
	for i, n := range names {
		out[i] = snapshot.Column{Name: n, Type: "text"}
	}
	return out
}

func TestWordSpans(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []span
	}{
		{"", nil},
		{"users", []span{{0, 5, "users"}}},
		{"display_name", []span{{0, 7, "display"}, {8, 12, "name"}}},
		{"DISPLAY_NAME", []span{{0, 7, "display"}, {8, 12, "name"}}},
		{"display name", []span{{0, 7, "display"}, {8, 12, "name"}}},
		{"displayName", []span{{0, 7, "display"}, {7, 11, "name"}}},
		{"DisplayName", []span{{0, 7, "display"}, {7, 11, "name"}}},
		{"HTTPServer", []span{{0, 4, "http"}, {4, 10, "server"}}},
		{"getHTTPResponseCode", []span{{0, 3, "get"}, {3, 7, "http"}, {7, 15, "response"}, {15, 19, "code"}}},
		{"userID", []span{{0, 4, "user"}, {4, 6, "id"}}},
		// A plural s stays with its upper-case run.
		{"userIDs", []span{{0, 4, "user"}, {4, 7, "ids"}}},
		{"IDs", []span{{0, 3, "ids"}}},
		{"imageURLsList", []span{{0, 5, "image"}, {5, 9, "urls"}, {9, 13, "list"}}},
		{"utf8String", []span{{0, 4, "utf8"}, {4, 10, "string"}}},
		// A combining accent stays with its letter.
		{"cafe\u0301s", []span{{0, 7, "cafe\u0301s"}}},
		{"ID", []span{{0, 2, "id"}}},
		{"aB", []span{{0, 1, "a"}, {1, 2, "b"}}},
		{"column_02", []span{{0, 6, "column"}, {7, 9, "02"}}},
		{"column02", []span{{0, 8, "column02"}}},
		// An upper-case letter after a digit starts a word.
		{"v2Api", []span{{0, 2, "v2"}, {2, 5, "api"}}},
		{"abc123def", []span{{0, 9, "abc123def"}}},
		{"2024_q3", []span{{0, 4, "2024"}, {5, 7, "q3"}}},
		{"--!? ... ()", nil},
		{"  \t\n", nil},
		{"\x00users\x00", []span{{1, 6, "users"}}},
		{"admin/users", []span{{0, 5, "admin"}, {6, 11, "users"}}},
		{":user_id, :item_id", []span{{1, 5, "user"}, {6, 8, "id"}, {11, 15, "item"}, {16, 18, "id"}}},
		// Hangul is 3 bytes a letter and has no case.
		{"회원_정보", []span{{0, 6, "회원"}, {7, 13, "정보"}}},
		{"회원정보", []span{{0, 12, "회원정보"}}},
		{"회원 정보", []span{{0, 6, "회원"}, {7, 13, "정보"}}},
		{"고객_orders", []span{{0, 6, "고객"}, {7, 13, "orders"}}},
		{"orders_고객", []span{{0, 6, "orders"}, {7, 13, "고객"}}},
		// Caseless letters split from cased ones.
		{"회원ID", []span{{0, 6, "회원"}, {6, 8, "id"}}},
		{"고객Name", []span{{0, 6, "고객"}, {6, 10, "name"}}},
		{"user회원", []span{{0, 4, "user"}, {4, 10, "회원"}}},
		{"주문한 고객, 상담 메모.", []span{{0, 9, "주문한"}, {10, 16, "고객"}, {18, 24, "상담"}, {25, 31, "메모"}}},
		// Accented letters: 2 bytes each, lower-cased, and split on case.
		{"Café_Crème", []span{{0, 5, "café"}, {6, 12, "crème"}}},
		{"naïveÉtat", []span{{0, 6, "naïve"}, {6, 11, "état"}}},
		{"ÉCOLE", []span{{0, 6, "école"}}},
		{"Straße", []span{{0, 7, "straße"}}},
		{"日本語テーブル", []span{{0, 21, "日本語テーブル"}}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got := wordSpans(tc.in)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(span{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("wordSpans(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
			// Spans are byte offsets: each slices back to its word.
			for _, sp := range got {
				if !utf8.ValidString(tc.in[sp.start:sp.end]) {
					t.Errorf("span %v of %q is not on rune boundaries", sp, tc.in)
				}
				if l := strings.ToLower(tc.in[sp.start:sp.end]); l != sp.word {
					t.Errorf("span %v of %q: text lower-cases to %q, word is %q", sp, tc.in, l, sp.word)
				}
			}
			var wantWords []string
			for _, sp := range tc.want {
				wantWords = append(wantWords, sp.word)
			}
			if diff := cmp.Diff(wantWords, words(tc.in), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("words(%q) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestSearchWordSplitting(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	want := []Hit{columnHit("main", "users", "display_name", MatchName, "")}
	for _, q := range []string{"display name", "displayName", "DisplayName", "display_name", "DISPLAY_NAME",
		"Display-Name", "display.name", "name display", "  display\tname  ", "disp nam"} {
		t.Run(q, func(t *testing.T) {
			wantHits(t, s, shopDev, SearchQuery{Text: q}, want, false)
		})
	}
}

func TestSearchSample(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	adminSQL := "SELECT id, email, role FROM users ORDER BY email LIMIT :limit"
	for _, tc := range []struct {
		query string
		want  []Hit
	}{
		{"purch", []Hit{
			tableHit("main", "purchases", MatchName, ""),
			logicHit("purchase_item", MatchName, ""),
		}},
		// A bare table name gives the tables, not each of their columns.
		{"users", []Hit{
			tableHit("analytics", "users", MatchName, ""),
			tableHit("main", "users", MatchName, ""),
			logicHit("admin/users", MatchName, ""),
		}},
		{"user", []Hit{
			tableHit("analytics", "users", MatchName, ""),
			tableHit("main", "users", MatchName, ""),
			logicHit("admin/users", MatchName, ""),
			columnHit("analytics", "events", "user_id", MatchName, ""),
			columnHit("main", "purchases", "user_id", MatchName, ""),
			columnHit("main", "refunds", "user_id", MatchName, ""),
			logicHit("purchase_item", MatchParam, "user_id"),
			columnHit("main", "users", "invited_by", MatchComment, "the inviting user"),
		}},
		// A column qualified by its table's name.
		{"users email", []Hit{
			columnHit("main", "users", "email", MatchName, ""),
			logicHit("admin/users", MatchSQL, adminSQL),
		}},
		{"email users", []Hit{
			columnHit("main", "users", "email", MatchName, ""),
			logicHit("admin/users", MatchSQL, adminSQL),
		}},
		{"purchases quantity", []Hit{
			columnHit("main", "purchases", "quantity", MatchName, ""),
			// The SQL is 82 runes long: an excerpt, cut at a space.
			logicHit("purchase_item", MatchSQL, "INSERT INTO purchases (user_id, item_id) VALUES (:user_id, :item_id) RETURNING id"),
		}},
		{"posts email", nil},
		// A column's comment, qualified by its table's name.
		{"users login", []Hit{columnHit("main", "users", "email", MatchComment, "login, lower case")}},
		{"login", []Hit{columnHit("main", "users", "email", MatchComment, "login, lower case")}},
		{"blog", []Hit{tableHit("main", "posts", MatchComment, "Blog posts")}},
		{"quantity", []Hit{
			columnHit("main", "purchases", "quantity", MatchName, ""),
			logicHit("purchase_item", MatchParam, "quantity"),
		}},
		{"console", []Hit{logicHit("admin/users", MatchDescription, "List users for the admin console")}},
		// The excerpt starts a few words before the match.
		{"returning", []Hit{logicHit("purchase_item", MatchSQL, "INSERT INTO purchases (user_id, item_id) VALUES (:user_id, :item_id) RETURNING id")}},
		// "id" is a whole word of user_id: short words match whole words.
		{"id", []Hit{
			columnHit("analytics", "users", "id", MatchName, ""),
			columnHit("main", "posts", "id", MatchName, ""),
			columnHit("main", "refunds", "id", MatchName, ""),
			columnHit("main", "users", "id", MatchName, ""),
			columnHit("analytics", "events", "user_id", MatchName, ""),
			columnHit("main", "posts", "author_id", MatchName, ""),
			columnHit("main", "purchases", "item_id", MatchName, ""),
			columnHit("main", "purchases", "user_id", MatchName, ""),
			columnHit("main", "refunds", "item_id", MatchName, ""),
			columnHit("main", "refunds", "user_id", MatchName, ""),
			columnHit("main", "users", "org_id", MatchName, ""),
			logicHit("purchase_item", MatchParam, "user_id, item_id"),
			logicHit("admin/users", MatchSQL, adminSQL),
		}},
		{"zebra", nil},
		{"users zebra", nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			wantHits(t, s, shopDev, SearchQuery{Text: tc.query, Limit: MaxSearchLimit}, tc.want, false)
		})
	}
}

func TestSearchPrefixes(t *testing.T) {
	s := openStore(t)
	put(t, s, searchSnapshot("r1", []snapshot.Table{
		{Name: "accounts", Columns: cols("id", "identity", "idx_order", "account_id", "ident", "paid", "userID")},
		{Name: "identities", Columns: cols("key")},
		{Name: "idx_accounts", Columns: cols("key")},
		{Name: "équipe", Columns: cols("key")},
		{Name: "고객정보", Columns: cols("key")},
		{Name: "orders", Comment: "주문 내역 테이블", Columns: cols("key")},
	}, nil), true)
	for _, tc := range []struct {
		query string
		want  []Hit
	}{
		// Two letters: whole words only, in any case.
		{"id", []Hit{
			columnHit("main", "accounts", "id", MatchName, ""),
			columnHit("main", "accounts", "account_id", MatchName, ""),
			columnHit("main", "accounts", "userID", MatchName, ""),
		}},
		{"ID", []Hit{
			columnHit("main", "accounts", "id", MatchName, ""),
			columnHit("main", "accounts", "account_id", MatchName, ""),
			columnHit("main", "accounts", "userID", MatchName, ""),
		}},
		{"i", nil},
		{"ke", nil},
		// Three letters and more: prefixes.
		{"ide", []Hit{
			tableHit("main", "identities", MatchName, ""),
			columnHit("main", "accounts", "ident", MatchName, ""),
			columnHit("main", "accounts", "identity", MatchName, ""),
		}},
		{"idx", []Hit{
			tableHit("main", "idx_accounts", MatchName, ""),
			columnHit("main", "accounts", "idx_order", MatchName, ""),
		}},
		{"acc", []Hit{
			tableHit("main", "accounts", MatchName, ""),
			tableHit("main", "idx_accounts", MatchName, ""),
			columnHit("main", "accounts", "account_id", MatchName, ""),
		}},
		// Non-ASCII words are prefixes however short.
		{"é", []Hit{tableHit("main", "équipe", MatchName, "")}},
		{"É", []Hit{tableHit("main", "équipe", MatchName, "")}},
		{"고", []Hit{tableHit("main", "고객정보", MatchName, "")}},
		{"고객", []Hit{tableHit("main", "고객정보", MatchName, "")}},
		{"고객정보", []Hit{tableHit("main", "고객정보", MatchName, "")}},
		{"객정", nil}, // not a prefix
		{"주문", []Hit{tableHit("main", "orders", MatchComment, "주문 내역 테이블")}},
		{"내역 주", []Hit{tableHit("main", "orders", MatchComment, "주문 내역 테이블")}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			wantHits(t, s, pDev, SearchQuery{Text: tc.query}, tc.want, false)
		})
	}
}

func TestSearchKorean(t *testing.T) {
	s := openStore(t)
	long := strings.Repeat("결제 기록을 담는 테이블입니다 ", 6) + "결제 내역과 환불 기록도 " +
		strings.Repeat("함께 보관하며 주기적으로 정리합니다 ", 6)
	put(t, s, searchSnapshot("r1", []snapshot.Table{
		{Name: "고객정보", Comment: "고객의 기본 정보", Columns: []snapshot.Column{
			{Name: "id", Type: "int"}, {Name: "이름", Type: "text", Comment: "고객 이름"}, {Name: "email", Type: "text"},
		}},
		{Name: "orders", Comment: "주문 내역 테이블", Columns: []snapshot.Column{
			{Name: "id", Type: "int"}, {Name: "customer_id", Type: "int", Comment: "주문한 고객"},
			{Name: "memo", Type: "text", Comment: long},
		}},
		{Name: "회원_정보", Columns: cols("id")},
	}, []snapshot.Logic{
		{Name: "refund", Description: "환불 처리", SQL: "UPDATE orders SET 상태 = '환불' WHERE id = :id"},
	}), true)
	for _, tc := range []struct {
		query string
		want  []Hit
	}{
		{"고객", []Hit{
			tableHit("main", "고객정보", MatchName, ""),
			columnHit("main", "고객정보", "이름", MatchComment, "고객 이름"),
			columnHit("main", "orders", "customer_id", MatchComment, "주문한 고객"),
		}},
		{"회원", []Hit{tableHit("main", "회원_정보", MatchName, "")}},
		{"회원정보", nil}, // the name is two words
		{"정보", []Hit{
			tableHit("main", "회원_정보", MatchName, ""),
			tableHit("main", "고객정보", MatchComment, "고객의 기본 정보"),
		}},
		// Korean and ASCII words together.
		{"customer 고객", []Hit{columnHit("main", "orders", "customer_id", MatchComment, "주문한 고객")}},
		{"orders 주문", []Hit{
			tableHit("main", "orders", MatchComment, "주문 내역 테이블"),
			columnHit("main", "orders", "customer_id", MatchComment, "주문한 고객"), // 주문한
		}},
		// A comment before a description.
		{"환불", []Hit{
			columnHit("main", "orders", "memo", MatchComment, excerpt(long, []string{"환불"})),
			logicHit("refund", MatchDescription, "환불 처리"),
		}},
		{"상태", []Hit{logicHit("refund", MatchSQL, "UPDATE orders SET 상태 = '환불' WHERE id = :id")}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			wantHits(t, s, pDev, SearchQuery{Text: tc.query}, tc.want, false)
		})
	}
	// The Korean excerpt is cut on rune boundaries, around the word.
	res := searchOK(t, s, pDev, SearchQuery{Text: "환불", Kinds: []Kind{KindColumn}})
	if len(res.Hits) != 1 {
		t.Fatalf("환불 in columns: %d hits, want 1", len(res.Hits))
	}
	checkExcerpt(t, res.Hits[0].Text, long, "환불", true, true)
}

// checkExcerpt checks an excerpt of text around word.
func checkExcerpt(tb testing.TB, got, text, word string, cutStart, cutEnd bool) {
	tb.Helper()
	if !utf8.ValidString(got) {
		tb.Errorf("excerpt %q is not valid UTF-8", got)
	}
	if !strings.Contains(got, word) {
		tb.Errorf("excerpt %q does not contain %q", got, word)
	}
	if len(got) >= len(text) {
		tb.Errorf("excerpt %q is not shorter than the text (%d bytes)", got, len(text))
	}
	if n := utf8.RuneCountInString(got); n > excerptRunes+2 {
		tb.Errorf("excerpt %q has %d runes, want at most %d", got, n, excerptRunes+2)
	}
	if strings.HasPrefix(got, "…") != cutStart {
		tb.Errorf("excerpt %q: starts with … = %v, want %v", got, !cutStart, cutStart)
	}
	if strings.HasSuffix(got, "…") != cutEnd {
		tb.Errorf("excerpt %q: ends with … = %v, want %v", got, !cutEnd, cutEnd)
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(got, "…"), "…")
	if !strings.Contains(strings.Join(strings.Fields(text), " "), inner) {
		tb.Errorf("excerpt %q is not a piece of the text", got)
	}
}

func TestExcerpt(t *testing.T) {
	long := "This table keeps a long history of everything that happened to the account, including the final " +
		"settlement of every invoice and refund issued."
	// About 100 runes, cut at spaces; near the end the window fills backwards.
	start := "This table keeps a long history of everything that happened to the account, including the final…"
	end := "…that happened to the account, including the final settlement of every invoice and refund issued."
	for _, tc := range []struct {
		name, text string
		terms      []string
		want       string
	}{
		{"short", "login, lower case", []string{"login"}, "login, lower case"},
		{"short white space", "  login,\n lower\t\tcase ", []string{"case"}, "login, lower case"},
		{"short no match", "login, lower case", []string{"zebra"}, "login, lower case"},
		{"at start", long, []string{"this"}, start},
		{"no match", long, []string{"zebra"}, start},
		{"near end", long, []string{"settlement"}, end},
		{"prefix", long, []string{"settle"}, end},
		{"last word", long, []string{"issued"}, end},
		{"100 runes", strings.Repeat("a", 100), []string{"aaa"}, strings.Repeat("a", 100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := excerpt(tc.text, tc.terms); got != tc.want {
				t.Errorf("excerpt(%q, %q) = %q, want %q", tc.text, tc.terms, got, tc.want)
			}
		})
	}
	middle := strings.Repeat("ab ", 30) + "needle" + strings.Repeat(" cd", 30)
	checkExcerpt(t, excerpt(middle, []string{"needle"}), middle, "needle", true, true)
	ko := strings.Repeat("가나 ", 30) + "고객정보" + strings.Repeat(" 다라", 30)
	checkExcerpt(t, excerpt(ko, []string{"고객"}), ko, "고객정보", true, true)
	checkExcerpt(t, excerpt(long, []string{"refund"}), long, "refund", true, false)
	checkExcerpt(t, excerpt(long, []string{"history"}), long, "history", false, true)
	sqlText := "SELECT id, created_at FROM billing_invoices WHERE tenant_id = :tenant_id AND created_at >= :since " +
		"ORDER BY created_at DESC LIMIT :limit"
	checkExcerpt(t, excerpt(sqlText, []string{"since"}), sqlText, ":since", true, false)
}

func TestSearchExcerptOfLongComment(t *testing.T) {
	s := openStore(t)
	comment := "This table keeps a long history of everything that happened to the account, including the final " +
		"settlement of every invoice and refund issued."
	longSQL := "SELECT id, created_at, amount, currency, status, customer_id, updated_at FROM billing_invoices " +
		"WHERE tenant_id = :tenant_id AND created_at >= :since AND status = 'open' ORDER BY created_at DESC LIMIT :limit"
	put(t, s, searchSnapshot("r1", []snapshot.Table{
		{Name: "history", Comment: comment, Columns: []snapshot.Column{{Name: "note", Type: "text", Comment: comment}}},
	}, []snapshot.Logic{{Name: "open_invoices", SQL: longSQL}}), true)
	want := "…that happened to the account, including the final settlement of every invoice and refund issued."
	wantHits(t, s, pDev, SearchQuery{Text: "settlement"}, []Hit{
		tableHit("main", "history", MatchComment, want),
		columnHit("main", "history", "note", MatchComment, want),
	}, false)
	for _, tc := range []struct {
		query, word      string
		cutStart, cutEnd bool
	}{
		{"select", "SELECT", false, true},
		{"currency", "currency", true, true},
		{"status open", "status", true, true},
		{"desc", "DESC", true, false},
		{"limit", ":limit", true, false},
	} {
		res := searchOK(t, s, pDev, SearchQuery{Text: tc.query})
		if len(res.Hits) != 1 || res.Hits[0].Logic != "open_invoices" || res.Hits[0].Matched != MatchSQL {
			t.Fatalf("%s: hits %+v, want the SQL of open_invoices", tc.query, res.Hits)
		}
		checkExcerpt(t, res.Hits[0].Text, longSQL, tc.word, tc.cutStart, tc.cutEnd)
	}
}

func TestSearchQueryIsPlainText(t *testing.T) {
	s := openStore(t)
	snap := sampleSnapshot()
	snap.Logics = append(snap.Logics, snapshot.Logic{Name: "report", Description: "users AND posts OR NOT near col name x",
		SQL: "SELECT 1"})
	put(t, s, snap, true)
	report := []Hit{logicHit("report", MatchDescription, "users AND posts OR NOT near col name x")}
	users := []Hit{
		tableHit("analytics", "users", MatchName, ""),
		tableHit("main", "users", MatchName, ""),
		logicHit("admin/users", MatchName, ""),
		logicHit("report", MatchDescription, "users AND posts OR NOT near col name x"),
	}
	for _, tc := range []struct {
		query, plain string // plain: the same words without syntax
		want         []Hit
	}{
		{`" OR * NEAR(`, "or near", report},
		{`AND`, "and", report},
		{`users OR posts`, "users or posts", report},
		{`users AND posts`, "users and posts", report},
		{`col:users`, "col users", report},
		{`{name}: x`, "name x", report},
		{`NOT users`, "not users", report},
		{`NEAR(users posts)`, "near users posts", report},
		{`^users`, "users", users},
		{`users*`, "users", users},
		{`"users"`, "users", users},
		{`-users`, "users", users},
		{`users"`, "users", users},
		{`(users`, "users", users},
		{`users + posts`, "users posts", report},
		{`*`, "", nil},
		{`""`, "", nil},
		{`users OR zebra`, "users or zebra", nil},
	} {
		t.Run(tc.query, func(t *testing.T) {
			wantHits(t, s, shopDev, SearchQuery{Text: tc.query}, tc.want, false)
			if tc.plain != "" {
				wantHits(t, s, shopDev, SearchQuery{Text: tc.plain}, tc.want, false)
			}
		})
	}
}

func TestSearchKinds(t *testing.T) {
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	var (
		analyticsUsers = tableHit("analytics", "users", MatchName, "")
		mainUsers      = tableHit("main", "users", MatchName, "")
		adminUsers     = logicHit("admin/users", MatchName, "")
		eventsUserID   = columnHit("analytics", "events", "user_id", MatchName, "")
		purchUserID    = columnHit("main", "purchases", "user_id", MatchName, "")
		refundsUserID  = columnHit("main", "refunds", "user_id", MatchName, "")
		purchaseItem   = logicHit("purchase_item", MatchParam, "user_id")
		invitedBy      = columnHit("main", "users", "invited_by", MatchComment, "the inviting user")
	)
	all := []Hit{analyticsUsers, mainUsers, adminUsers, eventsUserID, purchUserID, refundsUserID, purchaseItem, invitedBy}
	for _, tc := range []struct {
		name  string
		kinds []Kind
		want  []Hit
	}{
		{"nil", nil, all},
		{"empty", []Kind{}, all},
		{"all", []Kind{KindLogic, KindColumn, KindTable}, all},
		{"table", []Kind{KindTable}, []Hit{analyticsUsers, mainUsers}},
		{"column", []Kind{KindColumn}, []Hit{eventsUserID, purchUserID, refundsUserID, invitedBy}},
		{"logic", []Kind{KindLogic}, []Hit{adminUsers, purchaseItem}},
		{"table+logic", []Kind{KindTable, KindLogic}, []Hit{analyticsUsers, mainUsers, adminUsers, purchaseItem}},
		{"column twice", []Kind{KindColumn, KindColumn}, []Hit{eventsUserID, purchUserID, refundsUserID, invitedBy}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantHits(t, s, shopDev, SearchQuery{Text: "user", Kinds: tc.kinds}, tc.want, false)
		})
	}
	for _, k := range []Kind{"view", "Table", "tables", "", "column "} {
		t.Run(fmt.Sprintf("unknown %q", k), func(t *testing.T) {
			_, err := s.Search(context.Background(), shopDev, SearchQuery{Text: "user", Kinds: []Kind{KindTable, k}})
			wantCode(t, err, InvalidArgument)
		})
	}
}

func TestSearchLimit(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	// 30 tables orders_000.. and the logic orders/count: 31 hits, at most
	// searchPage tables, so all are ranked.
	put(t, s, smallSnapshot("p", "r1", "dev", 1, "orders", 30), true)
	var all []Hit
	for i := range 30 {
		all = append(all, tableHit("main", fmt.Sprintf("orders_%03d", i), MatchName, ""))
	}
	all = append(all, logicHit("orders/count", MatchName, ""))
	for _, tc := range []struct {
		limit int
		want  []Hit
		more  bool
	}{
		{0, all[:DefaultSearchLimit], true},
		{1, all[:1], true},
		{2, all[:2], true},
		{DefaultSearchLimit, all[:DefaultSearchLimit], true},
		{30, all[:30], true},
		{31, all, false},
		{32, all, false},
		{MaxSearchLimit, all, false},
	} {
		t.Run(fmt.Sprint(tc.limit), func(t *testing.T) {
			wantHits(t, s, pDev, SearchQuery{Text: "orders", Limit: tc.limit}, tc.want, tc.more)
		})
	}
	for _, limit := range []int{-1, -100, MaxSearchLimit + 1, 1 << 40} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			_, err := s.Search(ctx, pDev, SearchQuery{Text: "orders", Limit: limit})
			wantCode(t, err, InvalidArgument)
		})
	}
	// A query with few hits: More stays false.
	wantHits(t, s, pDev, SearchQuery{Text: "count", Limit: 1}, []Hit{logicHit("orders/count", MatchName, "")}, false)
	wantHits(t, s, pDev, SearchQuery{Text: "orders 007"}, []Hit{tableHit("main", "orders_007", MatchName, "")}, false)
}

// TestSearchLimitManyCandidates has more matching tables than a page, so
// the search reads them a page at a time.
func TestSearchLimitManyCandidates(t *testing.T) {
	s := openStore(t)
	put(t, s, smallSnapshot("p", "r1", "dev", 1, "orders", 50), true)
	var all []Hit
	for i := range 50 {
		all = append(all, tableHit("main", fmt.Sprintf("orders_%03d", i), MatchName, ""))
	}
	all = append(all, logicHit("orders/count", MatchName, ""))
	wantHits(t, s, pDev, SearchQuery{Text: "orders"}, all[:DefaultSearchLimit], true)
	wantHits(t, s, pDev, SearchQuery{Text: "orders", Limit: 1}, all[:1], true)
	wantHits(t, s, pDev, SearchQuery{Text: "orders", Limit: MaxSearchLimit}, all, false)
	wantHits(t, s, pDev, SearchQuery{Text: "orders", Limit: len(all)}, all, false)
	wantHits(t, s, pDev, SearchQuery{Text: "orders", Kinds: []Kind{KindTable}, Limit: 50}, all[:50], false)
	// Every table has an id column: 50 column hits, id before prev_id.
	res := searchOK(t, s, pDev, SearchQuery{Text: "id", Kinds: []Kind{KindColumn}})
	if len(res.Hits) != DefaultSearchLimit || !res.More {
		t.Fatalf("id: %d hits, More %v; want %d and More", len(res.Hits), res.More, DefaultSearchLimit)
	}
	for _, h := range res.Hits {
		if h.Kind != KindColumn || h.Column != "id" || h.Matched != MatchName {
			t.Errorf("id: hit %+v, want column id", h)
		}
	}
}

func TestSearchRanking(t *testing.T) {
	s := openStore(t)
	put(t, s, searchSnapshot("r1", []snapshot.Table{
		// In release order unlike rank order.
		{Name: "books", Comment: "The ledger of books", Columns: []snapshot.Column{
			{Name: "id", Type: "int"}, {Name: "ledger_id", Type: "int"},
			{Name: "notes", Type: "text", Comment: "copied from the ledger"},
		}},
		{Name: "ledgers", Columns: cols("id")},
		{Name: "ledger_entries", Columns: cols("id")},
		{Name: "ledger", Columns: cols("id")},
		{Name: "general_ledger", Columns: cols("id")},
		{Name: "ledger", Connection: "archive", Columns: cols("id")},
	}, []snapshot.Logic{
		{Name: "rebuild", SQL: "SELECT * FROM ledger"},
		{Name: "close_books", Description: "Closes the ledger", SQL: "SELECT 1"},
		{Name: "post_entry", SQL: "SELECT 1", Params: []snapshot.Param{
			{Name: "ledger_id", Type: "int"}, {Name: "amount", Type: "int"}, {Name: "ledger_name", Type: "text"},
		}},
		{Name: "ledger/post", SQL: "SELECT 1"},
	}), true)
	want := []Hit{
		// Table names: whole word, fewer words, connection, name; then prefixes.
		tableHit("archive", "ledger", MatchName, ""),
		tableHit("main", "ledger", MatchName, ""),
		tableHit("main", "general_ledger", MatchName, ""),
		tableHit("main", "ledger_entries", MatchName, ""),
		tableHit("main", "ledgers", MatchName, ""),
		// Logic names, then column names.
		logicHit("ledger/post", MatchName, ""),
		columnHit("main", "books", "ledger_id", MatchName, ""),
		// Params, comments (tables before columns), descriptions, SQL.
		logicHit("post_entry", MatchParam, "ledger_id, ledger_name"),
		tableHit("main", "books", MatchComment, "The ledger of books"),
		columnHit("main", "books", "notes", MatchComment, "copied from the ledger"),
		logicHit("close_books", MatchDescription, "Closes the ledger"),
		logicHit("rebuild", MatchSQL, "SELECT * FROM ledger"),
	}
	wantHits(t, s, pDev, SearchQuery{Text: "ledger"}, want, false)
	wantHits(t, s, pDev, SearchQuery{Text: "LEDGER"}, want, false)
	wantHits(t, s, pDev, SearchQuery{Text: "ledger", Limit: 3}, want[:3], true)
	// A prefix query: no whole words, so fewer words first.
	wantHits(t, s, pDev, SearchQuery{Text: "ledg", Kinds: []Kind{KindTable}}, []Hit{
		tableHit("archive", "ledger", MatchName, ""),
		tableHit("main", "ledger", MatchName, ""),
		tableHit("main", "ledgers", MatchName, ""),
		tableHit("main", "general_ledger", MatchName, ""),
		tableHit("main", "ledger_entries", MatchName, ""),
		tableHit("main", "books", MatchComment, "The ledger of books"),
	}, false)
	// More whole words first.
	wantHits(t, s, pDev, SearchQuery{Text: "ledger entries", Kinds: []Kind{KindTable}}, []Hit{
		tableHit("main", "ledger_entries", MatchName, ""),
	}, false)
}

func TestSearchRanksExactAmongPageOfCandidates(t *testing.T) {
	// 31 tables users_NNN before the table users, all of them one page of
	// candidates: the exact name still comes first.
	s := openStore(t)
	snap := smallSnapshot("p", "r1", "dev", 1, "users", searchPage-1)
	snap.Tables = append(snap.Tables, snapshot.Table{Name: "users", Connection: "main", Columns: cols("id")})
	put(t, s, snap, true)
	res := searchOK(t, s, pDev, SearchQuery{Text: "users", Limit: 3})
	want := []Hit{
		tableHit("main", "users", MatchName, ""),
		tableHit("main", "users_000", MatchName, ""),
		tableHit("main", "users_001", MatchName, ""),
	}
	if diff := cmp.Diff(want, res.Hits); diff != "" || !res.More {
		t.Errorf("users: More %v, hits mismatch (-want +got):\n%s", res.More, diff)
	}
}

func TestSearchErrors(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	put(t, s, sampleSnapshot(), true)
	seventeen := make([]string, maxQueryWords+1)
	for i := range seventeen {
		seventeen[i] = fmt.Sprintf("word%c", 'a'+i)
	}
	for _, tc := range []struct {
		name  string
		query string
	}{
		{"empty", ""},
		{"space", " "},
		{"white space", " \t\r\n\v\f\u00a0\u2003 "},
		{"too long", strings.Repeat("a", MaxQueryBytes+1)},
		{"too long words", strings.Repeat("users ", MaxQueryBytes/6+1)},
		{"invalid UTF-8", "users \xff"},
		{"truncated rune", "고객"[:4]},
		{"overlong encoding", "\xc0\xafusers"},
		{"17 words", strings.Join(seventeen, " ")},
		{"17 camelCase words", strings.Join(seventeen, "X")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Search(ctx, shopDev, SearchQuery{Text: tc.query})
			wantCode(t, err, InvalidArgument)
			// Checked before the release: the same with no release.
			_, err = s.Search(ctx, Target{Project: "none", Environment: "dev"}, SearchQuery{Text: tc.query})
			wantCode(t, err, InvalidArgument)
		})
	}
	for _, tc := range []struct {
		name  string
		query string
		want  []Hit
	}{
		{"16 words", strings.Join(seventeen[:maxQueryWords], " "), nil},
		{"17 words, 16 different", strings.Join(seventeen[:maxQueryWords], " ") + " " + seventeen[0], nil},
		{"one word many times", strings.Repeat("Users users USERS ", 50), []Hit{
			tableHit("analytics", "users", MatchName, ""),
			tableHit("main", "users", MatchName, ""),
			logicHit("admin/users", MatchName, ""),
		}},
		{"1024 bytes", strings.Repeat("a", MaxQueryBytes), nil},
		{"1024 bytes of one prefix", strings.Repeat("z", MaxQueryBytes-6) + " purch", nil},
		{"punctuation", "!!! --- ... () \"\" ''", nil},
		{"symbols", "→ ★ ✓ 🙂", nil},
		{"NUL", "\x00", nil},
		{"NULs", "\x00\x00\x00", nil},
		{"NUL between words", "users\x00email", []Hit{
			columnHit("main", "users", "email", MatchName, ""),
			logicHit("admin/users", MatchSQL, "SELECT id, email, role FROM users ORDER BY email LIMIT :limit"),
		}},
		{"NUL in word", "purch\x00", []Hit{
			tableHit("main", "purchases", MatchName, ""),
			logicHit("purchase_item", MatchName, ""),
		}},
		{"control characters", "\x01\x02display\x1bname\x7f", []Hit{columnHit("main", "users", "display_name", MatchName, "")}},
		{"zero-width space", "\u200b", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantHits(t, s, shopDev, SearchQuery{Text: tc.query}, tc.want, false)
		})
	}
}

func TestSearchNoRelease(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	_, err := s.Search(ctx, shopDev, SearchQuery{Text: "users"})
	wantCode(t, err, NoRelease)
	_, err = s.Search(ctx, shopDev, SearchQuery{Text: "!!!"})
	wantCode(t, err, NoRelease)

	// A cached release that is not current is not searched.
	put(t, s, sampleSnapshot(), false)
	_, err = s.Search(ctx, shopDev, SearchQuery{Text: "users"})
	wantCode(t, err, NoRelease)
	_, err = s.Search(ctx, Target{Project: "shop", Environment: "prod"}, SearchQuery{Text: "users"})
	wantCode(t, err, NoRelease)
	_, err = s.Search(ctx, Target{Project: "", Environment: ""}, SearchQuery{Text: "users"})
	wantCode(t, err, NoRelease)
}

// searchIndexCounts returns the search rows and search_words rows of the
// release with row id release.
func searchIndexCounts(tb testing.TB, s *Store, release int64) (rows, words int) {
	tb.Helper()
	ctx := context.Background()
	lo, hi := idRange(release)
	if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM search WHERE rowid >= ? AND rowid < ?", lo, hi).Scan(&rows); err != nil {
		tb.Fatalf("count search rows: %v", err)
	}
	if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM search_words WHERE release = ?", release).Scan(&words); err != nil {
		tb.Fatalf("count search words: %v", err)
	}
	return rows, words
}

// releaseRowID returns the row id of a cached release.
func releaseRowID(tb testing.TB, s *Store, project, id string) int64 {
	tb.Helper()
	var pk int64
	if err := s.r.QueryRowContext(context.Background(), "SELECT id FROM releases WHERE project = ? AND release_id = ?",
		project, id).Scan(&pk); err != nil {
		tb.Fatalf("release %s/%s: %v", project, id, err)
	}
	return pk
}

// distinctWords counts the distinct words of the searchable text of snap.
func distinctWords(snap *snapshot.Snapshot) int {
	set := map[string]bool{}
	add := func(texts ...string) {
		for _, text := range texts {
			for _, w := range words(text) {
				set[w] = true
			}
		}
	}
	for _, t := range snap.Tables {
		add(t.Name, t.Comment)
		for _, c := range t.Columns {
			add(c.Name, c.Comment)
		}
	}
	for _, l := range snap.Logics {
		add(l.Name, l.Description, l.SQL)
		for _, p := range l.Params {
			add(p.Name)
		}
	}
	return len(set)
}

// wantIndexCounts checks the search index of release against snap.
func wantIndexCounts(tb testing.TB, s *Store, release int64, snap *snapshot.Snapshot) {
	tb.Helper()
	rows, words := searchIndexCounts(tb, s, release)
	wantRows, wantWords := 0, 0
	if snap != nil {
		wantRows, wantWords = len(snap.Tables)+len(snap.Logics), distinctWords(snap)
	}
	if rows != wantRows || words != wantWords {
		tb.Errorf("release %d: %d search rows and %d words, want %d and %d", release, rows, words, wantRows, wantWords)
	}
}

func TestSearchReleaseIsolation(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	sample := sampleSnapshot()
	prod := smallSnapshot("shop", "rel_prod", "prod", 1, "users", 3)
	other := smallSnapshot("other", "rel_o", "dev", 1, "users", 2)
	next := smallSnapshot("shop", "rel_43", "dev", 43, "members", 2)
	put(t, s, sample, true)
	put(t, s, prod, true)
	put(t, s, other, true)
	put(t, s, next, false) // cached, not current
	shopProd := Target{Project: "shop", Environment: "prod"}
	otherDev := Target{Project: "other", Environment: "dev"}

	wantHits(t, s, shopDev, SearchQuery{Text: "users"}, []Hit{
		tableHit("analytics", "users", MatchName, ""),
		tableHit("main", "users", MatchName, ""),
		logicHit("admin/users", MatchName, ""),
	}, false)
	wantHits(t, s, shopProd, SearchQuery{Text: "users"}, []Hit{
		tableHit("main", "users_000", MatchName, ""),
		tableHit("main", "users_001", MatchName, ""),
		tableHit("main", "users_002", MatchName, ""),
		logicHit("users/count", MatchName, ""),
	}, false)
	wantHits(t, s, otherDev, SearchQuery{Text: "users"}, []Hit{
		tableHit("main", "users_000", MatchName, ""),
		tableHit("main", "users_001", MatchName, ""),
		logicHit("users/count", MatchName, ""),
	}, false)
	wantHits(t, s, shopDev, SearchQuery{Text: "members"}, nil, false)
	wantHits(t, s, shopProd, SearchQuery{Text: "purch"}, nil, false)
	wantHits(t, s, otherDev, SearchQuery{Text: "002"}, nil, false)

	for _, snap := range []*snapshot.Snapshot{sample, prod, other, next} {
		wantIndexCounts(t, s, releaseRowID(t, s, snap.Release.Project, snap.Release.ID), snap)
	}

	// Switching the current release switches what is searched.
	if err := s.SetCurrent(ctx, "shop", "dev", "rel_43"); err != nil {
		t.Fatal(err)
	}
	wantHits(t, s, shopDev, SearchQuery{Text: "members 001"}, []Hit{tableHit("main", "members_001", MatchName, "")}, false)
	wantHits(t, s, shopDev, SearchQuery{Text: "purch"}, nil, false)
	wantHits(t, s, shopProd, SearchQuery{Text: "members"}, nil, false)
}

func TestSearchReplaceAndDelete(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	sample := sampleSnapshot()
	// The same release again, with other tables and logics.
	replacement := smallSnapshot("shop", "rel_42", "dev", 42, "members", 4)
	bystander := smallSnapshot("other", "rel_o", "dev", 1, "users", 2)
	put(t, s, bystander, true)
	put(t, s, sample, true)
	rel := releaseRowID(t, s, "shop", "rel_42")
	by := releaseRowID(t, s, "other", "rel_o")
	wantIndexCounts(t, s, rel, sample)

	// A replaced release gets a new row id, and nothing is left under the
	// old one.
	put(t, s, replacement, true)
	replaced := releaseRowID(t, s, "shop", "rel_42")
	if replaced == rel {
		t.Fatalf("replacing kept the release row id %d; want a new one", rel)
	}
	wantIndexCounts(t, s, rel, nil)
	rel = replaced
	wantIndexCounts(t, s, rel, replacement)
	for _, q := range []string{"users", "purch", "display name", "email", "blog", "console", "returning", "people"} {
		wantHits(t, s, shopDev, SearchQuery{Text: q}, nil, false)
	}
	wantHits(t, s, shopDev, SearchQuery{Text: "members 003"}, []Hit{tableHit("main", "members_003", MatchName, "")}, false)
	wantHits(t, s, shopDev, SearchQuery{Text: "members_000"}, []Hit{
		tableHit("main", "members_000", MatchName, ""),
		logicHit("members/count", MatchSQL, "SELECT count(*) FROM members_000"),
	}, false)

	if err := s.DeleteRelease(ctx, ReleaseKey{Project: "shop", ID: "rel_42"}); err != nil {
		t.Fatal(err)
	}
	wantIndexCounts(t, s, rel, nil)
	_, err := s.Search(ctx, shopDev, SearchQuery{Text: "members"})
	wantCode(t, err, NoRelease)

	// The other project's release is untouched.
	wantIndexCounts(t, s, by, bystander)
	wantHits(t, s, Target{Project: "other", Environment: "dev"}, SearchQuery{Text: "users 001"},
		[]Hit{tableHit("main", "users_001", MatchName, "")}, false)

	// A release stored after the delete may get the freed row id: it sees
	// none of the deleted rows.
	put(t, s, replacement, true)
	wantIndexCounts(t, s, releaseRowID(t, s, "shop", "rel_42"), replacement)
	wantHits(t, s, shopDev, SearchQuery{Text: "users"}, nil, false)
	var total int
	if err := s.r.QueryRowContext(ctx, "SELECT count(*) FROM search_words").Scan(&total); err != nil {
		t.Fatal(err)
	}
	if want := distinctWords(replacement) + distinctWords(bystander); total != want {
		t.Errorf("search_words holds %d rows, want %d", total, want)
	}
}

func TestSearchManyReplaceCycles(t *testing.T) {
	s := openStore(t)
	a := sampleSnapshot()
	bystander := smallSnapshot("other", "rel_o", "dev", 1, "users", 2)
	put(t, s, bystander, true)
	by := releaseRowID(t, s, "other", "rel_o")
	sampleUsers := []Hit{
		tableHit("analytics", "users", MatchName, ""),
		tableHit("main", "users", MatchName, ""),
		logicHit("admin/users", MatchName, ""),
	}
	for cycle := range 25 {
		// Release rel_42 alternates between the sample and tables of a
		// name that changes each cycle.
		var snap *snapshot.Snapshot
		if cycle%2 == 0 {
			snap = sampleSnapshot()
		} else {
			snap = smallSnapshot("shop", "rel_42", "dev", 42, fmt.Sprintf("cycle%d", cycle), 3+cycle%5)
		}
		put(t, s, snap, true)
		rel := releaseRowID(t, s, "shop", "rel_42")
		wantIndexCounts(t, s, rel, snap)
		if cycle%2 == 0 {
			wantHits(t, s, shopDev, SearchQuery{Text: "users"}, sampleUsers, false)
			wantHits(t, s, shopDev, SearchQuery{Text: "cycle"}, nil, false)
		} else {
			wantHits(t, s, shopDev, SearchQuery{Text: "users"}, nil, false)
			res := searchOK(t, s, shopDev, SearchQuery{Text: "cycle", Kinds: []Kind{KindTable}, Limit: MaxSearchLimit})
			var names []string
			for _, h := range res.Hits {
				names = append(names, h.Table)
			}
			var want []string
			for _, tb := range snap.Tables {
				want = append(want, tb.Name)
			}
			if diff := cmp.Diff(want, names); diff != "" {
				t.Fatalf("cycle %d: tables found by \"cycle\" mismatch (-want +got):\n%s", cycle, diff)
			}
		}
		if t.Failed() {
			t.Fatalf("cycle %d failed", cycle)
		}
	}
	a.Release.ID = "rel_a"
	put(t, s, a, false)
	wantIndexCounts(t, s, by, bystander)
	wantIndexCounts(t, s, releaseRowID(t, s, "shop", "rel_a"), a)
	var total int
	if err := s.r.QueryRowContext(context.Background(), "SELECT count(*) FROM search_words").Scan(&total); err != nil {
		t.Fatal(err)
	}
	if want := distinctWords(bystander) + distinctWords(a) + distinctWords(sampleSnapshot()); total != want {
		t.Errorf("search_words holds %d rows after the cycles, want %d", total, want)
	}
}

// TestSearchMigratesVersion1 opens an index that has only the first
// migration and a release in it: the later migrations empty it, for the
// indexer to rebuild.
func TestSearchMigratesVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := sql.Open("sqlite", dsn(path, "vfs="+cksumvfs.Name)) // with page checksums, as this hubsnap makes an index
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	body, err := fs.ReadFile(migrations.FS, "0001_init.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"PRAGMA foreign_keys = ON",
		`CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
	)`,
		string(body),
		"INSERT INTO schema_migrations (version, name) VALUES (1, '0001_init.sql')",
		`INSERT INTO releases (id, project, release_id, environment, version, created_at, synced_at, source, digest,
			file_digest, file_size, file_mtime, table_count, logic_count)
		VALUES (1, 'shop', 'rel_old', 'dev', 1, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'hub', 'sha256:x',
			'sha256:y', 10, 20, 1, 1)`,
		"INSERT INTO current_releases (project, environment, release) VALUES ('shop', 'dev', 1)",
		"INSERT INTO connections (release, name, engine, position) VALUES (1, 'main', 'postgres', 0)",
		`INSERT INTO tables (id, release, connection, name, comment, position, primary_key)
		VALUES (7, 1, 'main', 'old_users', '', 0, '[]')`,
		`INSERT INTO columns (table_id, position, name, type, nullable, comment, default_value, enum_values)
		VALUES (7, 0, 'id', 'int', 0, '', '', '[]')`,
		`INSERT INTO logics (id, release, name, description, sql, auth_required, auth_roles, position)
		VALUES (3, 1, 'old/logic', '', 'SELECT 1', 0, '[]', 0)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			db.Close()
			t.Fatalf("build version 1 index: %v\n%s", err, q)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := openStoreAt(t, path)
	if v, err := s.SchemaVersion(ctx); err != nil || v != newestMigration(t) {
		t.Fatalf("SchemaVersion = %d, %v; want %d", v, err, newestMigration(t))
	}
	var names []string
	for _, m := range appliedMigrations(t, s) {
		names = append(names, m.Name)
	}
	if diff := cmp.Diff(embeddedMigrations(t), names); diff != "" {
		t.Errorf("schema_migrations mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(emptyCounts(t, s), rowCounts(t, s)); diff != "" {
		t.Errorf("index not emptied by the migration (-want +got):\n%s", diff)
	}
	if rels, err := s.Releases(ctx, ""); err != nil || len(rels) != 0 {
		t.Errorf("Releases = %v, %v; want none", rels, err)
	}
	_, err = s.Search(ctx, shopDev, SearchQuery{Text: "users"})
	wantCode(t, err, NoRelease)

	put(t, s, sampleSnapshot(), true)
	wantHits(t, s, shopDev, SearchQuery{Text: "display name"},
		[]Hit{columnHit("main", "users", "display_name", MatchName, "")}, false)
	wantHits(t, s, shopDev, SearchQuery{Text: "old"}, nil, false)
	wantIndexCounts(t, s, releaseRowID(t, s, "shop", "rel_42"), sampleSnapshot())
}

func TestCompareHits(t *testing.T) {
	// Kinds lists every kind once, in the tie order of compareHits.
	if diff := cmp.Diff([]Kind{KindTable, KindColumn, KindLogic}, Kinds); diff != "" {
		t.Errorf("Kinds mismatch (-want +got):\n%s", diff)
	}
	hits := []rankedHit{
		{Hit: Hit{Kind: KindLogic, Logic: "a"}, step: 4},
		{Hit: Hit{Kind: KindColumn, Connection: "main", Table: "a", Column: "b"}, step: 4},
		{Hit: Hit{Kind: KindColumn, Connection: "main", Table: "a", Column: "a"}, step: 4},
		{Hit: Hit{Kind: KindTable, Connection: "main", Table: "b"}, step: 4},
		{Hit: Hit{Kind: KindTable, Connection: "main", Table: "a"}, step: 4},
		{Hit: Hit{Kind: KindTable, Connection: "archive", Table: "z"}, step: 4},
		{Hit: Hit{Kind: KindTable, Connection: "main", Table: "long"}, step: 4, words: 2},
		{Hit: Hit{Kind: KindTable, Connection: "main", Table: "exact"}, step: 4, exact: 1, words: 3},
		{Hit: Hit{Kind: KindLogic, Logic: "first"}, step: 0, words: 9},
	}
	slices.SortFunc(hits, compareHits)
	var got []string
	for _, h := range hits {
		got = append(got, fmt.Sprintf("%s %s.%s.%s%s", h.Kind, h.Connection, h.Table, h.Column, h.Logic))
	}
	want := []string{
		"logic ..first",
		"table main.exact.",
		"table archive.z.",
		"table main.a.",
		"table main.b.",
		"column main.a.a",
		"column main.a.b",
		"logic ..a",
		"table main.long.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("compareHits order mismatch (-want +got):\n%s", diff)
	}
}

// TestSearchPrefixOfManyWords has a prefix that stands for more than
// maxExpansions words of the release, which the search hands to FTS5 as a
// prefix.
func TestSearchPrefixOfManyWords(t *testing.T) {
	s := openStore(t)
	var tables []snapshot.Table
	var want, wantKo []Hit
	for i := range maxExpansions + 6 {
		name := fmt.Sprintf("word%02d", i)
		tables = append(tables, snapshot.Table{Name: name, Columns: cols("id")})
		want = append(want, tableHit("main", name, MatchName, ""))
	}
	for i := range maxExpansions + 1 {
		name := fmt.Sprintf("고객%02d", i)
		tables = append(tables, snapshot.Table{Name: name, Columns: cols("id")})
		wantKo = append(wantKo, tableHit("main", name, MatchName, ""))
	}
	// Words FTS5 folds to a word of the prefix but that do not start with
	// it.
	tables = append(tables, snapshot.Table{Name: "wórd", Columns: cols("id")}, snapshot.Table{Name: "WORD", Columns: cols("words")})
	want = append([]Hit{tableHit("main", "WORD", MatchName, "")}, want...)
	put(t, s, searchSnapshot("r1", tables, nil), true)
	wantHits(t, s, pDev, SearchQuery{Text: "word", Kinds: []Kind{KindTable}, Limit: MaxSearchLimit}, want, false)
	wantHits(t, s, pDev, SearchQuery{Text: "wor", Kinds: []Kind{KindTable}, Limit: MaxSearchLimit}, want, false)
	wantHits(t, s, pDev, SearchQuery{Text: "word", Kinds: []Kind{KindColumn}}, []Hit{
		columnHit("main", "WORD", "words", MatchName, ""),
	}, false)
	wantHits(t, s, pDev, SearchQuery{Text: "고객", Limit: MaxSearchLimit}, wantKo, false)
	wantHits(t, s, pDev, SearchQuery{Text: "wó"}, []Hit{tableHit("main", "wórd", MatchName, "")}, false)
	wantHits(t, s, pDev, SearchQuery{Text: "word 07"}, nil, false)
	wantHits(t, s, pDev, SearchQuery{Text: "word07"}, want[8:9], false)
}

// An exact name is found however many other names share its words and
// however late it comes: 300 tables users_NNN come before the table users
// and the logic users, far more than one step examines.
func TestSearchFindsExactNamesBeyondTheBudget(t *testing.T) {
	s := openStore(t)
	snap := smallSnapshot("p", "r1", "dev", 1, "users", 300)
	snap.Tables = append(snap.Tables, snapshot.Table{Name: "Users", Connection: "main", Columns: cols("id")})
	snap.Logics = append(snap.Logics, snapshot.Logic{Name: "admin/users_list", SQL: "SELECT 1"}, snapshot.Logic{Name: "users", SQL: "SELECT 1"})
	put(t, s, snap, true)
	res := searchOK(t, s, pDev, SearchQuery{Text: "users", Limit: 3})
	want := []Hit{
		tableHit("main", "Users", MatchName, ""),
		logicHit("users", MatchName, ""),
		tableHit("main", "users_000", MatchName, ""),
	}
	if diff := cmp.Diff(want, res.Hits); diff != "" || !res.More {
		t.Errorf("users: More %v, hits mismatch (-want +got):\n%s", res.More, diff)
	}
	// Only the kinds asked for.
	wantHits(t, s, pDev, SearchQuery{Text: "USERS", Kinds: []Kind{KindLogic}, Limit: 1},
		[]Hit{logicHit("users", MatchName, "")}, true)
}

// A column search looks only at tables where a word is in a column name:
// 200 tables orders_NNN whose names hold the word do not hide the one
// column that does.
func TestSearchColumnsIgnoresTablesWithoutTheWordInAColumn(t *testing.T) {
	s := openStore(t)
	snap := smallSnapshot("p", "r1", "dev", 1, "orders", 200)
	last := &snap.Tables[len(snap.Tables)-1]
	last.Columns = append(last.Columns, snapshot.Column{Name: "orders_count", Type: "integer"})
	put(t, s, snap, true)
	wantHits(t, s, pDev, SearchQuery{Text: "orders", Kinds: []Kind{KindColumn}},
		[]Hit{columnHit("main", last.Name, "orders_count", MatchName, "")}, false)
}
