package indexer

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/store/storetest"
)

// analysisDump is every row of the analysis tables of the index in dir,
// one line each, in key order.
func analysisDump(tb testing.TB, dir string) []string {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(filepath.Join(dir, indexFile))+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var out []string
	for _, q := range []string{
		`SELECT * FROM release_analysis ORDER BY release`,
		`SELECT * FROM logic_analysis ORDER BY logic_id`,
		`SELECT * FROM logic_results ORDER BY logic_id, position`,
		`SELECT * FROM logic_tables ORDER BY release, connection, table_name, logic_id`,
		`SELECT * FROM logic_bindings ORDER BY logic_id, position`,
		`SELECT * FROM logic_problems ORDER BY logic_id, position`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			tb.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				tb.Fatal(err)
			}
			out = append(out, q[14:strings.Index(q, " ORDER")]+fmt.Sprint(vals...))
		}
		rows.Close()
	}
	return out
}

// TestStreamedAnalysisAsFromRows: an import analyses a document's logics
// as they are decoded, against the tables it kept in memory; the rows
// are exactly those of the analysis made from the index's rows (a release
// indexed pending, then analysed by a parsing Open), for a release of
// 3,000 tables and 600 logics of every storetest shape.
func TestStreamedAnalysisAsFromRows(t *testing.T) {
	ctx := context.Background()
	var doc bytes.Buffer
	if err := storetest.WriteRelease(&doc, storetest.Size{Tables: 3000, Logics: 600}); err != nil {
		t.Fatal(err)
	}
	streamed := t.TempDir()
	importDoc(t, streamed, doc.Bytes())
	want := analysisDump(t, streamed)
	if len(want) < 600 {
		t.Fatalf("%d analysis rows, want at least one per logic", len(want))
	}

	fromRows := t.TempDir()
	np, err := OpenWith(ctx, fromRows, testLog(t), OpenOptions{NoParse: true})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "release.json")
	writeFile(t, file, doc.Bytes())
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = np.write(ctx, func() error {
		_, err := np.importLocked(ctx, f, "")
		return err
	})
	np.Close()
	if err != nil {
		t.Fatal(err)
	}
	openCache(t, fromRows).Close() // analyses the pending release from its rows
	if diff := cmp.Diff(want, analysisDump(t, fromRows)); diff != "" {
		t.Errorf("analysis rows (-streamed +from rows):\n%s", diff)
	}
}
