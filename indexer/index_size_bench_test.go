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
// and reports the size of index.db (index-MB), the release file's
// (file-MB) and the JSON's (json-MB), and logs, from SQLite's dbstat,
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
				index, release, report = indexSizes(b, dir)
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

// benchSizes are the numbers of tables of the import benchmarks:
// HUBSNAP_BENCH_TABLES (comma-separated) or 10,000 and 100,000.
func benchSizes(tb testing.TB) []int {
	s := os.Getenv("HUBSNAP_BENCH_TABLES")
	if s == "" {
		return []int{10_000, 100_000}
	}
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n <= 0 {
			tb.Fatalf("HUBSNAP_BENCH_TABLES: %q is not a number of tables", f)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// indexSizes returns the size of the cache's index.db, of its release
// files, and a report of the index's bytes by table (its indexes
// included) and of the stored columns over 5 MB, from dbstat.
func indexSizes(tb testing.TB, dir string) (index, release int64, report string) {
	tb.Helper()
	path := filepath.Join(dir, "index.db")
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	index = st.Size()
	err = filepath.WalkDir(filepath.Join(dir, "releases"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		release += fi.Size()
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
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
	return index, release, sb.String()
}
