package store

import (
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hubsnap/hubsnap/migrations"
)

type appliedMigration struct {
	Version   int
	Name      string
	AppliedAt string
}

func appliedMigrations(tb testing.TB, s *Store) []appliedMigration {
	tb.Helper()
	rows, err := s.r.QueryContext(context.Background(), "SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
	if err != nil {
		tb.Fatalf("read schema_migrations: %v", err)
	}
	defer rows.Close()
	var out []appliedMigration
	for rows.Next() {
		var m appliedMigration
		if err := rows.Scan(&m.Version, &m.Name, &m.AppliedAt); err != nil {
			tb.Fatal(err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// embeddedMigrations lists the migration files of the build, independently
// of the store's own parser.
func embeddedMigrations(tb testing.TB) []string {
	tb.Helper()
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		tb.Fatal(err)
	}
	if len(names) == 0 {
		tb.Fatal("no embedded migrations")
	}
	slices.Sort(names)
	return names
}

// newestMigration is the version of the newest embedded migration (the
// schema version of a migrated index).
func newestMigration(tb testing.TB) int {
	tb.Helper()
	files, err := migrationFiles()
	if err != nil {
		tb.Fatal(err)
	}
	return files[len(files)-1].version
}

func TestOpenMigrates(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	files := embeddedMigrations(t)

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if got, want := s.Path(), path; got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}
	first := appliedMigrations(t, s)
	var gotNames []string
	for _, m := range first {
		gotNames = append(gotNames, m.Name)
		if m.AppliedAt == "" {
			t.Errorf("migration %s has no applied_at", m.Name)
		}
	}
	if diff := cmp.Diff(files, gotNames); diff != "" {
		t.Errorf("schema_migrations mismatch (-want +got):\n%s", diff)
	}
	version, err := s.SchemaVersion(ctx)
	if err != nil {
		t.Fatalf("SchemaVersion: %v", err)
	}
	if want := first[len(first)-1].Version; version != want {
		t.Errorf("SchemaVersion = %d, want %d", version, want)
	}
	put(t, s, sampleSnapshot(), true)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	// Opening again applies nothing and keeps the data.
	for range 2 {
		s = openStoreAt(t, path)
		if diff := cmp.Diff(first, appliedMigrations(t, s)); diff != "" {
			t.Errorf("schema_migrations changed on reopen (-first +now):\n%s", diff)
		}
		if v, err := s.SchemaVersion(ctx); err != nil || v != version {
			t.Errorf("SchemaVersion after reopen = %d, %v; want %d", v, err, version)
		}
		got, refs, err := readTable(t, s, shopDev, "main", "users")
		if err != nil {
			t.Fatalf("TableJSON after reopen: %v", err)
		}
		if diff := cmp.Diff(sampleTable(t, "main", "users"), got, equateEmpty); diff != "" {
			t.Errorf("TableJSON after reopen mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantReferencedBy(sampleSnapshot(), "main", "users"), refs); diff != "" {
			t.Errorf("referencedBy after reopen mismatch (-want +got):\n%s", diff)
		}
	}
}

func TestMigrationFiles(t *testing.T) {
	got, err := migrationFiles()
	if err != nil {
		t.Fatal(err)
	}
	files := embeddedMigrations(t)
	if len(got) != len(files) {
		t.Fatalf("migrationFiles() = %d files, want %d", len(got), len(files))
	}
	for i, m := range got {
		if m.name != files[i] || m.version != i+1 {
			t.Errorf("migration %d = %+v, want %s with version %d (numbered from 1, no gaps)", i, m, files[i], i+1)
		}
	}
}

// TestConnectionSettings checks the pragmas the DSN promises: WAL, NORMAL
// sync and foreign keys on the writer; a reader pool that cannot write.
func TestConnectionSettings(t *testing.T) {
	s := openStore(t)
	ctx := context.Background()

	var mode string
	if err := s.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
	var fk, sync, busy int
	if err := s.w.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		t.Fatal(err)
	}
	if err := s.w.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
		t.Fatal(err)
	}
	if err := s.w.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
		t.Fatal(err)
	}
	// The writer keeps the foreign keys itself (TestWritesKeepForeignKeys).
	if fk != 0 || sync != 1 || busy <= 0 {
		t.Errorf("writer: foreign_keys=%d synchronous=%d busy_timeout=%d; want 0, 1 (NORMAL), > 0", fk, sync, busy)
	}
	if err := s.r.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
		t.Fatal(err)
	}
	if busy <= 0 {
		t.Errorf("reader busy_timeout = %d, want > 0", busy)
	}
	if _, err := s.r.ExecContext(ctx, "INSERT INTO connections (release, name, engine, position) VALUES (1, 'x', 'y', 0)"); err == nil {
		t.Error("the read pool accepted an INSERT")
	}
}

func TestOpenCorruptRandomBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	garbage := make([]byte, 64<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(rng.UintN(256))
	}
	if err := os.WriteFile(path, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path)
	if err == nil {
		s.Close()
		t.Fatal("Open of random bytes succeeded")
	}
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("Open of random bytes: err = %v, want one wrapping ErrCorrupt", err)
	}
}

// TestOpenCorruptTruncated cuts a real index short at several sizes. SQLite
// notices every cut that removes whole pages (the header's page count no
// longer matches) and Open reports ErrCorrupt; a cut inside the last page
// can go unnoticed, which is acceptable as long as nothing panics.
func TestOpenCorruptTruncated(t *testing.T) {
	ctx := context.Background()
	data := closedIndex(t)
	n := len(data)
	page := headerPageSize(t, data)
	if n < 8*page {
		t.Fatalf("index is only %d bytes; want several pages", n)
	}

	tests := []struct {
		name string
		size int
	}{
		{"half", n / 2},
		{"quarter", n / 4},
		{"three quarters", 3 * n / 4},
		{"half plus a bit", n/2 + 100},
		{"one page short", n - page},
		{"first page only", page},
		{"inside the header", 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "index.db")
			if err := os.WriteFile(path, data[:tt.size], 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(ctx, path)
			if err == nil {
				s.Close()
				t.Fatalf("Open of an index cut to %d of %d bytes succeeded", tt.size, n)
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("Open of an index cut to %d of %d bytes: err = %v, want one wrapping ErrCorrupt", tt.size, n, err)
			}
		})
	}

	t.Run("one byte short", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "index.db")
		if err := os.WriteFile(path, data[:n-1], 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(ctx, path)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("err = %v, want nil or one wrapping ErrCorrupt", err)
			}
			return
		}
		defer s.Close()
		// SQLite does not notice: reads must still answer or fail cleanly.
		if _, err := s.TablesPage(ctx, shopDev, "", PageRequest{}); err != nil {
			t.Logf("TablesPage on an index one byte short: %v", err)
		}
	})
}

func TestOpenNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, "INSERT INTO schema_migrations (version, name) VALUES (9999, '9999_future.sql')"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, path)
	if err == nil {
		s.Close()
		t.Fatal("Open of an index from a newer hubsnap succeeded")
	}
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("err = %v, want one wrapping ErrCorrupt", err)
	}
	if !strings.Contains(err.Error(), "newer") {
		t.Errorf("err = %q, want it to mention a newer hubsnap", err)
	}
}

func TestOpenEmptyFile(t *testing.T) {
	// An empty file is a valid empty SQLite database: Open migrates it.
	path := filepath.Join(t.TempDir(), "index.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := openStoreAt(t, path)
	if v, err := s.SchemaVersion(context.Background()); err != nil || v == 0 {
		t.Errorf("SchemaVersion = %d, %v; want > 0", v, err)
	}
}

func TestOpenMissingFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "folder", "index.db")
	s, err := Open(context.Background(), path)
	if err == nil {
		s.Close()
		t.Fatal("Open in a missing folder succeeded")
	}
	if errors.Is(err, ErrCorrupt) {
		t.Errorf("Open in a missing folder: err = %v; must not claim the index is corrupt (it would be deleted)", err)
	}
}

func TestOddPath(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "my cache #1 ?a=b %41 100%")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := "index 50%?mode=ro#frag%2f.db"
	path := filepath.Join(dir, name)

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	put(t, s, sampleSnapshot(), true)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// The file is exactly where it was asked for, with its stamp and the
	// log and shared memory a writer keeps (persist.go), and nothing else
	// was made.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if diff := cmp.Diff([]string{name, name + "-shm", name + "-wal", name + ".checked"}, got); diff != "" {
		t.Errorf("folder contents mismatch (-want +got):\n%s", diff)
	}
	parent, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(parent) != 1 {
		var names []string
		for _, e := range parent {
			names = append(names, e.Name())
		}
		t.Errorf("stray files beside the cache folder: %q", names)
	}

	s = openStoreAt(t, path)
	got2, _, err := readTable(t, s, shopDev, "analytics", "users")
	if err != nil {
		t.Fatalf("TableJSON after reopen: %v", err)
	}
	if got2.Comment != "Activity per user" {
		t.Errorf("TableJSON after reopen: comment %q", got2.Comment)
	}
	// The reader pool opened the same file (not a fresh empty one).
	n, err := readLogics(t, s, shopDev)
	if err != nil || len(n) != 3 {
		t.Errorf("LogicsPage after reopen = %v, %v; want 3", n, err)
	}
}

func TestRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	s := openStoreAt(t, "index.db")
	if got, want := s.Path(), filepath.Join(dir, "index.db"); got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}
	put(t, s, sampleSnapshot(), true)
	if _, err := os.Stat(filepath.Join(dir, "index.db")); err != nil {
		t.Error(err)
	}
}

// TestNewIndexIsPrivate: a new index, and the -wal and -shm files SQLite
// makes beside it, are readable by their owner only.
func TestNewIndexIsPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	path := filepath.Join(t.TempDir(), "index.db")
	s := openStoreAt(t, path)
	put(t, s, sampleSnapshot(), true)
	for _, name := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Errorf("stat: %v", err)
			continue
		}
		if got := fi.Mode().Perm(); got != 0o600 {
			t.Errorf("%s: mode %v, want -rw-------", filepath.Base(name), got)
		}
	}
}

// TestOpenScribbledPages overwrites each page of a real index in turn with
// garbage. Open checks every table's b-tree (the full-text index's tables
// included, see Store.check): it must report ErrCorrupt for a damaged
// page in use, and whatever it lets through must answer or fail cleanly,
// never panic. Pages on the freelist are not in use and may go unnoticed.
func TestOpenScribbledPages(t *testing.T) {
	ctx := context.Background()
	data := closedIndex(t)
	page := headerPageSize(t, data)
	pages := len(data) / page
	caught := 0
	for p := 1; p < pages; p++ { // page 0 holds the header and schema
		damaged := append([]byte(nil), data...)
		for i := p * page; i < (p+1)*page; i++ {
			damaged[i] = byte(i*7 + 13)
		}
		path := filepath.Join(t.TempDir(), "index.db")
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(ctx, path)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("page %d: Open: err = %v, want one wrapping ErrCorrupt", p, err)
			}
			caught++
			continue
		}
		// Let through: reads answer or fail, and nothing panics.
		s.TablesPage(ctx, shopDev, "", PageRequest{})
		s.TablesPage(ctx, shopDev, "main", PageRequest{Limit: 2})
		s.TableJSON(ctx, shopDev, "", "users")
		s.TableJSON(ctx, shopDev, "main", "users")
		s.LogicsPage(ctx, shopDev, PageRequest{})
		s.LogicJSON(ctx, shopDev, "purchase_item")
		s.ReleaseJSON(ctx, shopDev)
		s.Search(ctx, shopDev, SearchQuery{Text: "user"})
		s.Close()
	}
	t.Logf("Open caught %d of %d damaged pages", caught, pages-1)
	if caught < (pages-1)*3/4 {
		t.Errorf("Open caught only %d of %d damaged pages", caught, pages-1)
	}
}

// closedIndex returns the bytes of a real index holding two releases,
// optimized and closed, with nothing left in a -wal file.
func closedIndex(t *testing.T) []byte {
	t.Helper()
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "index.db")
	s, err := Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, sampleSnapshot(), true)
	put(t, s, smallSnapshot("shop", "rel_41", "dev", 41, "t", 200), false)
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if wal, err := os.Stat(src + "-wal"); err == nil && wal.Size() > 0 {
		t.Fatal("changes left in the -wal file after Close: the index file alone would not hold the data")
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
