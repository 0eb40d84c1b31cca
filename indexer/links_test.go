package indexer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// importErr imports doc into the cache dir and returns the error.
func importErr(tb testing.TB, dir string, doc []byte) error {
	tb.Helper()
	file := filepath.Join(tb.TempDir(), "snapshot.json")
	writeFile(tb, file, doc)
	_, err := Import(context.Background(), dir, file, nil, testLog(tb))
	return err
}

// symlink makes link point at target.
func symlink(tb testing.TB, target, link string) {
	tb.Helper()
	if err := os.Symlink(target, link); err != nil {
		tb.Fatal(err)
	}
}

// wantLinkError fails unless err names path as a symbolic link.
func wantLinkError(tb testing.TB, what string, err error, path string) {
	tb.Helper()
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "symbolic link") {
		tb.Errorf("%s: err = %v, want it to name %s as a symbolic link", what, err, path)
	}
}

// An index.db (or its log) that is a link is refused: the database it
// leads to is neither migrated nor filled.
func TestIndexLinkIsRefused(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(t.TempDir(), "other.db")
	writeFile(t, elsewhere, nil)
	symlink(t, elsewhere, filepath.Join(dir, "index.db"))
	err := importErr(t, dir, shopDoc(t, "rel_42", 42, nil))
	wantLinkError(t, "import with index.db a link", err, filepath.Join(dir, "index.db"))
	if info, err := os.Stat(elsewhere); err != nil || info.Size() != 0 {
		t.Errorf("the database the link leads to was written: %v, %v", info.Size(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "releases", "shop")); err == nil {
		t.Error("a release was written beside a refused index")
	}

	dir = t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	wal := filepath.Join(dir, "index.db-wal")
	os.Remove(wal)
	symlink(t, filepath.Join(t.TempDir(), "log"), wal)
	_, err = Open(context.Background(), dir, testLog(t))
	wantLinkError(t, "open with index.db-wal a link", err, wal)
}

// A release folder (or releases/ itself) that is a link makes an import
// fail, naming it, and nothing is written where it leads: no "imported"
// for what the cache does not hold.
func TestReleaseFolderLinkIsRefused(t *testing.T) {
	for _, name := range []string{"releases", "releases/shop"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			target := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o700); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, name)
			symlink(t, target, link)
			err := importErr(t, dir, shopDoc(t, "rel_42", 42, nil))
			wantLinkError(t, "import", err, link)
			h := newHub(t)
			h.Add("shop", shopDoc(t, "rel_43", 43, nil))
			_, err = syncShop(t, h, dir, "")
			wantLinkError(t, "sync", err, link)
			if entries, _ := os.ReadDir(target); len(entries) > 0 {
				t.Errorf("written through the link: %s", entries[0].Name())
			}
			c := openCache(t, dir)
			if list, err := c.Releases(context.Background(), ""); err != nil || len(list) != 0 {
				t.Errorf("releases = %v, %v; want none", list, err)
			}
		})
	}
}

// A release file or a .current file that is a link is never replaced or
// written through, and the reconcile does not follow it.
func TestReleaseFileLinksAreRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	importDoc(t, dir, shopDoc(t, "rel_40", 40, nil))
	project := filepath.Join(dir, "releases", "shop")

	// A link where rel_42's file would go.
	target := filepath.Join(t.TempDir(), "target.json")
	writeFile(t, target, []byte("not mine"))
	link := filepath.Join(project, "rel_42.json")
	symlink(t, target, link)
	err := importErr(t, dir, shopDoc(t, "rel_42", 42, nil))
	wantLinkError(t, "import over a link", err, link)
	if got := readFile(t, target); got != "not mine" {
		t.Errorf("the link's target was changed: %q", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}

	// A link in place of dev.current.
	pointer := filepath.Join(project, "dev.current")
	os.Remove(pointer)
	elsewhere := filepath.Join(t.TempDir(), "pointer")
	writeFile(t, elsewhere, []byte("rel_40\n"))
	symlink(t, elsewhere, pointer)
	c := openCache(t, dir)
	_, err = c.Use(ctx, "shop", "dev", "rel_41")
	wantLinkError(t, "use with dev.current a link", err, pointer)
	if got := readFile(t, elsewhere); got != "rel_40\n" {
		t.Errorf("written through the .current link: %q", got)
	}
	// The reconcile follows neither: rel_42 is not a release of the
	// cache, and no release is current (the pointer is not a file).
	if err := c.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	list, _ := c.Releases(ctx, "shop")
	if got := ids(list); strings.Join(got, ",") != "rel_41,rel_40" {
		t.Errorf("releases = %v, want rel_41 and rel_40", got)
	}
	if _, err := c.store.Current(ctx, shopDev); err == nil {
		t.Error("a release is current through a .current link")
	}
}

// The cache folder itself may be a link (~/.cache often is): it is
// resolved once, and the cache works where it leads.
func TestCacheFolderLinkIsResolved(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "cache")
	symlink(t, real, link)
	importDoc(t, link, shopDoc(t, "rel_42", 42, nil))
	if _, err := os.Stat(filepath.Join(real, "releases", "shop", "rel_42.json")); err != nil {
		t.Errorf("release file not in the folder the link leads to: %v", err)
	}
	c := openCache(t, link)
	want, _ := filepath.EvalSymlinks(real)
	if c.dir != want {
		t.Errorf("cache folder = %s, want %s", c.dir, want)
	}
	if ri, err := c.store.Current(context.Background(), shopDev); err != nil || ri.ID != "rel_42" {
		t.Errorf("current = %v, %v; want rel_42", ri.ID, err)
	}
}
