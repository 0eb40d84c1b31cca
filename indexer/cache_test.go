package indexer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/atomicfile"
)

var shopDev = store.Target{Project: "shop", Environment: "dev"}

func importDoc(tb testing.TB, dir string, doc []byte) Result {
	tb.Helper()
	file := filepath.Join(tb.TempDir(), "snapshot.json")
	writeFile(tb, file, doc)
	res, err := Import(context.Background(), dir, file, nil, testLog(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

func openCache(tb testing.TB, dir string) *Cache {
	tb.Helper()
	c, err := Open(context.Background(), dir, testLog(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

func TestImportListUse(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	res := importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	if res.ID != "rel_41" || res.Source != snapshot.SourceImport || !res.Current || res.Unchanged {
		t.Errorf("import = %+v, want rel_41 imported and current", res)
	}
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	if again := importDoc(t, dir, shopDoc(t, "rel_42", 42, nil)); !again.Unchanged {
		t.Errorf("importing the same file again = %+v, want unchanged", again)
	}

	// From standard input.
	stdinDoc := shopDoc(t, "rel_43", 43, nil)
	res, err := Import(ctx, dir, "-", bytes.NewReader(stdinDoc), testLog(t))
	if err != nil || res.ID != "rel_43" {
		t.Fatalf("import - = %+v, %v", res, err)
	}

	c := openCache(t, dir)
	list, err := c.Releases(ctx, "shop")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ri := range list {
		mark := ""
		if ri.Current {
			mark = "*"
		}
		got = append(got, ri.ID+mark)
	}
	if want := "rel_43* rel_42 rel_41"; strings.Join(got, " ") != want {
		t.Errorf("list = %v, want %s", got, want)
	}

	// Roll back offline.
	ri, err := c.Use(ctx, "shop", "dev", "rel_41")
	if err != nil || ri.ID != "rel_41" || !ri.Current {
		t.Fatalf("use rel_41 = %+v, %v", ri, err)
	}
	if cur, _ := c.Store().Current(ctx, shopDev); cur.ID != "rel_41" {
		t.Errorf("current = %s, want rel_41", cur.ID)
	}
	if got := readFile(t, filepath.Join(dir, "releases/shop/dev.current")); got != "rel_41\n" {
		t.Errorf("dev.current = %q", got)
	}

	// Errors.
	if _, err := c.Use(ctx, "shop", "dev", "rel_9"); store.ErrorCode(err) != store.NotFound {
		t.Errorf("use rel_9 = %v, want NOT_FOUND", err)
	}
	if _, err := c.Use(ctx, "shop", "prod", "rel_41"); store.ErrorCode(err) != store.WrongEnvironment {
		t.Errorf("use rel_41 in prod = %v, want WRONG_ENVIRONMENT", err)
	}
	if _, err := c.Use(ctx, "shop", "dev", "../x"); store.ErrorCode(err) != store.InvalidArgument {
		t.Errorf("use ../x = %v, want INVALID_ARGUMENT", err)
	}
}

func TestImportRejectsBadFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	root := filepath.Dir(dir)
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	before := tree(t, root)

	bad := filepath.Join(t.TempDir(), "bad.json")
	writeFile(t, bad, shopDoc(t, "rel_42", 42, func(doc map[string]any) {
		doc["logics"].([]any)[1].(map[string]any)["name"] = "admin/../users"
	}))
	_, err := Import(context.Background(), dir, bad, nil, testLog(t))
	if err == nil || !strings.Contains(err.Error(), `logics[1].name: "admin/../users" has a ".." segment`) || !strings.Contains(err.Error(), bad) {
		t.Errorf("import of a bad logic name = %v", err)
	}
	if _, err := Import(context.Background(), dir, filepath.Join(root, "missing.json"), nil, testLog(t)); err == nil ||
		!strings.Contains(err.Error(), "missing.json") {
		t.Errorf("import of a missing file = %v", err)
	}
	if _, err := Import(context.Background(), dir, t.TempDir(), nil, testLog(t)); err == nil {
		t.Error("import of a folder succeeded")
	}
	assertTree(t, root, before)
}

func TestIndexRebuiltWhenMissing(t *testing.T) {
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(filepath.Join(dir, "index.db"+suffix))
	}
	c := openCache(t, dir)
	cur, err := c.Store().Current(context.Background(), shopDev)
	if err != nil || cur.ID != "rel_42" || cur.Tables != 6 || cur.Source != snapshot.SourceImport {
		t.Fatalf("after rebuild current = %+v, %v; want rel_42 with 6 tables", cur, err)
	}
	list, _ := c.Releases(context.Background(), "")
	if len(list) != 2 {
		t.Errorf("after rebuild %d releases, want 2", len(list))
	}
	tbl, err := readTable(t, c.Store(), shopDev, "main", "posts")
	if err != nil || len(tbl.ForeignKeys) != 1 || tbl.ForeignKeys[0].References.Table != "users" {
		t.Errorf("posts after rebuild = %+v, %v", tbl, err)
	}
}

func TestIndexRebuiltWhenCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(path string)
	}{
		{"garbage", func(path string) { os.WriteFile(path, bytes.Repeat([]byte("not a database "), 500), 0o600) }},
		{"empty header", func(path string) {
			data, _ := os.ReadFile(path)
			copy(data, make([]byte, 100))
			os.WriteFile(path, data, 0o600)
		}},
		{"truncated", func(path string) {
			info, _ := os.Stat(path)
			os.Truncate(path, info.Size()/3)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
			tc.corrupt(filepath.Join(dir, "index.db"))
			c := openCache(t, dir)
			cur, err := c.Store().Current(context.Background(), shopDev)
			if err != nil || cur.ID != "rel_42" {
				t.Fatalf("after rebuild current = %v, %v; want rel_42", cur.ID, err)
			}
			refs, err := readTableNames(t, c.Store(), shopDev)
			if err != nil || len(refs) != 6 {
				t.Errorf("after rebuild tables = %v, %v; want 6", refs, err)
			}
		})
	}
}

func TestReconcileFollowsTheFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	c := openCache(t, dir)
	relFile := filepath.Join(dir, "releases/shop/rel_42.json")
	saved := readFile(t, relFile)

	// The current release's file is removed: NO_RELEASE.
	os.Remove(relFile)
	if err := c.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Store().Current(ctx, shopDev); store.ErrorCode(err) != store.NoRelease {
		t.Errorf("after removing the current file: %v, want NO_RELEASE", err)
	}
	if list, _ := c.Releases(ctx, "shop"); len(list) != 1 {
		t.Errorf("releases = %d, want 1", len(list))
	}

	// It comes back: current again.
	writeFile(t, relFile, []byte(saved))
	if err := c.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if cur, err := c.Store().Current(ctx, shopDev); err != nil || cur.ID != "rel_42" {
		t.Errorf("after restoring the file: %v, %v; want rel_42", cur.ID, err)
	}

	// The pointer file changes by hand.
	writeFile(t, filepath.Join(dir, "releases/shop/dev.current"), []byte("rel_41\n"))
	c.Reconcile(ctx)
	if cur, _ := c.Store().Current(ctx, shopDev); cur.ID != "rel_41" {
		t.Errorf("after editing dev.current: %s, want rel_41", cur.ID)
	}
	// A pointer to a release that is not there, or from another environment.
	writeFile(t, filepath.Join(dir, "releases/shop/dev.current"), []byte("rel_77\n"))
	writeFile(t, filepath.Join(dir, "releases/shop/prod.current"), []byte("rel_41\n"))
	c.Reconcile(ctx)
	for _, env := range []string{"dev", "prod"} {
		if _, err := c.Store().Current(ctx, store.Target{Project: "shop", Environment: env}); store.ErrorCode(err) != store.NoRelease {
			t.Errorf("%s: %v, want NO_RELEASE", env, err)
		}
	}
	os.Remove(filepath.Join(dir, "releases/shop/prod.current"))
	writeFile(t, filepath.Join(dir, "releases/shop/dev.current"), []byte("rel_42\n"))

	// A release file edited by hand is re-indexed.
	edited := strings.Replace(saved, "Blog posts", "Edited comment", 1)
	writeFile(t, relFile, []byte(edited))
	c.Reconcile(ctx)
	tbl, err := readTable(t, c.Store(), shopDev, "", "posts")
	if err != nil || tbl.Comment != "Edited comment" {
		t.Errorf("posts after edit = %v, %v", tbl, err)
	}

	// An invalid file is skipped and kept; its release leaves the index.
	writeFile(t, relFile, []byte(`{"formatVersion": 1, "tables": [`))
	c.Reconcile(ctx)
	if _, err := c.Store().Current(ctx, shopDev); store.ErrorCode(err) != store.NoRelease {
		t.Errorf("with an invalid current file: %v, want NO_RELEASE", err)
	}
	if _, err := os.Stat(relFile); err != nil {
		t.Errorf("the invalid file was removed: %v", err)
	}

	// A file holding another release than its name says is skipped too.
	writeFile(t, filepath.Join(dir, "releases/shop/rel_50.json"), []byte(saved))
	// Names that are not releases, and symlinks, are ignored.
	writeFile(t, filepath.Join(dir, "releases/shop/notes.txt"), []byte("hello"))
	os.Symlink(filepath.Join(t.TempDir(), "elsewhere.json"), filepath.Join(dir, "releases/shop/rel_60.json"))
	c.Reconcile(ctx)
	list, _ := c.Releases(ctx, "")
	if len(list) != 1 || list[0].ID != "rel_41" {
		t.Errorf("releases = %+v, want only rel_41", list)
	}
}

func TestReconcileSkipsUnchangedFilesWithoutReading(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	before := tree(t, dir)
	c := openCache(t, dir)
	// Reconciling a consistent cache writes nothing at all.
	for range 3 {
		if err := c.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	assertTree(t, dir, before)

	// Touching the file without changing it only records the new time.
	relFile := filepath.Join(dir, "releases/shop/rel_42.json")
	later := time.Now().Add(time.Hour)
	os.Chtimes(relFile, later, later)
	c = openCache(t, dir)
	files, _ := c.Store().IndexedFiles(ctx)
	if got := files[store.ReleaseKey{Project: "shop", ID: "rel_42"}].MTime; got != later.UnixNano() {
		t.Errorf("recorded mtime %d, want %d", got, later.UnixNano())
	}
}

// The next writer removes at once the temp files no live writer owns,
// however young, and never one a live writer holds (here, this process's;
// leftovers_test.go kills real writers).
func TestPutRemovesOnlyLeftoverTempFiles(t *testing.T) {
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	folder := filepath.Join(dir, "releases/shop")
	dead := filepath.Join(folder, ".rel_40.json.part-123")
	writeFile(t, dead, []byte("{"))
	live, err := atomicfile.CreateTemp(filepath.Join(folder, "rel_39.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()

	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead writer's temp file is still there (%v)", err)
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Errorf("a live writer's temp file was removed: %v", err)
	}
}

func TestFailedHookLeavesFilesAndIndex(t *testing.T) {
	// Writing the pointer fails after the release file has moved into
	// place: both the file and the index must be as they were.
	ctx := context.Background()
	dir := t.TempDir()
	qa := func(doc map[string]any) { doc["release"].(map[string]any)["environment"] = "qa" }
	importDoc(t, dir, shopDoc(t, "rel_41", 41, qa))
	pointer := filepath.Join(dir, "releases/shop/qa.current")
	os.Remove(pointer)
	if err := os.Mkdir(pointer, 0o700); err != nil { // a pointer that cannot be replaced
		t.Fatal(err)
	}
	openCache(t, dir).Close() // let the index see the pointer go
	before := tree(t, dir)

	for _, doc := range [][]byte{
		shopDoc(t, "rel_41", 41, func(doc map[string]any) { qa(doc); doc["tables"] = []any{} }), // replaces a file
		shopDoc(t, "rel_42", 42, qa), // a new file
	} {
		path := filepath.Join(t.TempDir(), "doc.json")
		writeFile(t, path, doc)
		if _, err := Import(ctx, dir, path, nil, testLog(t)); err == nil || !strings.Contains(err.Error(), "qa.current") {
			t.Errorf("import = %v, want an error about qa.current", err)
		}
	}
	c := openCache(t, dir)
	ri, err := c.Store().ReleaseInfo(ctx, store.ReleaseKey{Project: "shop", ID: "rel_41"})
	if err != nil || ri.Tables != 6 {
		t.Errorf("index after failed puts: %+v, %v; want rel_41 with its 6 tables", ri, err)
	}
	if _, err := c.Store().ReleaseInfo(ctx, store.ReleaseKey{Project: "shop", ID: "rel_42"}); store.ErrorCode(err) != store.NotFound {
		t.Errorf("rel_42 in the index after a failed put: %v", err)
	}
	c.Close()
	assertTree(t, dir, before)
}
