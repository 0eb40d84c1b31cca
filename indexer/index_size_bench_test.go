package indexer

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkIndexSize imports the documents of BenchmarkImportCurve
// (storetest.WriteRelease: 10,000 and 100,000 tables, or
// HUBSNAP_BENCH_TABLES) into an empty cache, as `snapshot import` does,
// and reports the size of index.db with its log (index-MB), the release
// file's (file-MB) and the JSON's (json-MB), and logs, from SQLite's dbstat,
// the bytes of each table with its indexes, and the text of the largest
// columns:
// what docs/benchmarks.md's "slimindex" section lists. Sizes are in
// millions of bytes.
//
//	go test ./indexer -run '^$' -bench BenchmarkIndexSize -benchtime 1x -v
func BenchmarkIndexSize(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			file := importFile(b, n)
			st, err := os.Stat(file)
			if err != nil {
				b.Fatal(err)
			}
			var index, release int64
			var report string
			for b.Loop() {
				dir := b.TempDir()
				if _, err := Import(ctx, dir, file, nil, nil); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				release, index = cacheSizes(b, dir)
				report = indexReport(b, dir)
				os.RemoveAll(dir)
				b.StartTimer()
			}
			b.ReportMetric(float64(index)/1e6, "index-MB")
			b.ReportMetric(float64(release)/1e6, "file-MB")
			b.ReportMetric(float64(st.Size())/1e6, "json-MB")
			b.Logf("%d tables: index.db %.1f MB, release file %.1f MB, JSON %.1f MB\n%s",
				n, float64(index)/1e6, float64(release)/1e6, float64(st.Size())/1e6, report)
		})
	}
}

// indexReport reports the bytes of the index of the cache in dir by table
// (its indexes included), its free pages, and the stored text of the
// answers' parts and of the findings' messages, from dbstat.
func indexReport(tb testing.TB, dir string) string {
	tb.Helper()
	path := filepath.Join(dir, indexFile)
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?mode=ro")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var sb strings.Builder
	rows, err := db.Query(`SELECT coalesce(m.tbl_name, s.name) AS owner, sum(s.pgsize), group_concat(DISTINCT s.name)
		FROM dbstat s LEFT JOIN sqlite_schema m ON m.name = s.name
		GROUP BY owner ORDER BY 2 DESC`)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var owner, names string
		var bytes int64
		if err := rows.Scan(&owner, &bytes, &names); err != nil {
			tb.Fatal(err)
		}
		if bytes >= 1e6 {
			fmt.Fprintf(&sb, "  %-24s %7.1f MB  (%s)\n", owner, float64(bytes)/1e6, names)
		}
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	var free int64
	if err := db.QueryRow(`SELECT freelist_count * page_size FROM pragma_freelist_count, pragma_page_size`).Scan(&free); err != nil {
		tb.Fatal(err)
	}
	fmt.Fprintf(&sb, "  %-24s %7.1f MB\n", "(free pages)", float64(free)/1e6)
	// The text of the answers' stored parts and of the findings' messages.
	for _, c := range [][2]string{{"columns", "json"}, {"foreign_keys", "json"}, {"foreign_keys", "ref_json"},
		{"schema_findings", "message"}, {"indexes", "json"}} {
		var bytes sql.NullInt64
		if err := db.QueryRow(`SELECT sum(octet_length(` + c[1] + `)) FROM ` + c[0]).Scan(&bytes); err != nil {
			tb.Fatal(err)
		}
		fmt.Fprintf(&sb, "  %s.%s: %.1f MB of text\n", c[0], c[1], float64(bytes.Int64)/1e6)
	}
	return sb.String()
}
