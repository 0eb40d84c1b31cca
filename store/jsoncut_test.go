package store

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzQuoteCut checks json_quote_cut through SQLite: its answer is a JSON
// string within the size, of the text or of a prefix of it ending in '…'
// that could not take one more character; and when the text fits, it is
// exactly json_quote's answer.
func FuzzQuoteCut(f *testing.F) {
	for _, s := range []string{"", "plain", `"quoted" \ and \\`, "tab\tnew\nline\r\b\f", "\x00\x01\x1f\x7f",
		"주문 상태 코드", strings.Repeat("\x01", 40), strings.Repeat(`"`, 40), "é…😀"} {
		for _, max := range []int64{11, 12, 16, 30, 100} {
			f.Add(s, max)
		}
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { db.Close() })
	f.Fuzz(func(t *testing.T, s string, max int64) {
		if !utf8.ValidString(s) || max < minCut || max > 1<<20 {
			t.Skip()
		}
		var got, quoted string
		if err := db.QueryRow(`SELECT json_quote_cut(?1, ?2), json_quote(?1)`, s, max).Scan(&got, &quoted); err != nil {
			t.Fatal(err)
		}
		if int64(len(got)) > max {
			t.Fatalf("%d bytes, over %d", len(got), max)
		}
		var text string
		if err := json.Unmarshal([]byte(got), &text); err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		if int64(len(quoted)) <= max {
			if got != quoted {
				t.Fatalf("fits, but %s is not json_quote's %s", got, quoted)
			}
			return
		}
		prefix, ok := strings.CutSuffix(text, "…")
		if !ok || !strings.HasPrefix(s, prefix) || len(prefix) == len(s) {
			t.Fatalf("cut answer %q is not a prefix of %q with …", text, s)
		}
		next, size := utf8.DecodeRuneInString(s[len(prefix):])
		longer := appendQuoteCut(nil, prefix+string(next), 1<<30)
		if int64(len(longer)+len("…")) <= max {
			t.Fatalf("cut at %d bytes of %d, but %q fits too", len(prefix), len(s), s[:len(prefix)+size])
		}
	})
}

func TestQuoteCutRefusesTinySizes(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var got sql.NullString
	err = db.QueryRow(`SELECT json_quote_cut('text', 4)`).Scan(&got)
	if err == nil || !strings.Contains(err.Error(), "at least 11") {
		t.Fatalf("got %v, %v; want an error", got, err)
	}
	if err := db.QueryRow(`SELECT json_quote_cut(NULL, 100)`).Scan(&got); err != nil || got.Valid {
		t.Fatalf("NULL: got %v, %v", got, err)
	}
}
