package indexer

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerify: a healthy index is healthy, also when a release file changed
// since it was indexed (the index lags; that is not damage); a damaged page
// and a row changed behind hubsnap's back are found; repair repairs them,
// from plain release files and from compressed ones alike.
func TestVerify(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testVerify(t, releaseExt) })
	t.Run("compressed", func(t *testing.T) {
		setPackThreshold(t, 1000)
		testVerify(t, packedExt)
	})
}

func testVerify(t *testing.T, ext string) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_41", 41, nil))
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	path := filepath.Join(dir, "index.db")
	verify := func(repair bool) VerifyReport {
		t.Helper()
		rep, err := Verify(ctx, dir, repair, testLog(t))
		if err != nil {
			t.Fatalf("Verify(repair %v): %v", repair, err)
		}
		return rep
	}
	if rep := verify(false); !rep.Healthy() || len(rep.Damage) != 0 || rep.Pages == 0 {
		t.Fatalf("a new index: %+v, want healthy", rep)
	}

	// A release file rewritten since it was indexed.
	file := filepath.Join(dir, "releases/shop/rel_41"+ext)
	edited := []byte(readRelease(t, file) + " ")
	if ext == packedExt {
		edited = packBytes(t, edited)
	}
	writeFile(t, file, edited)
	if rep := verify(false); !rep.Healthy() {
		t.Errorf("an index behind its release files: %+v, want healthy", rep)
	}

	// A damaged page.
	flipIndexByte(t, path, `{"name":"author_id"`)
	rep := verify(false)
	if rep.Healthy() || len(rep.Damage) == 0 || rep.Damage[0].Kind != "page" ||
		!strings.Contains(rep.Damage[0].What, "of columns: the page fails its checksum") {
		t.Errorf("a damaged page: %+v", rep)
	}
	if rep := verify(true); !rep.Repaired || !rep.Healthy() {
		t.Errorf("repair of a damaged page: %+v", rep)
	}
	if rep := verify(false); !rep.Healthy() || len(rep.Damage) != 0 {
		t.Errorf("after the repair: %+v", rep)
	}

	// A row changed through SQLite (checksums kept).
	db, err := sql.Open("sqlite", "file:"+path+"?vfs=hubsnap")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `UPDATE logics SET sql = 'DROP TABLE users' WHERE name = 'purchase_item'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	rep = verify(false)
	if rep.Healthy() || len(rep.Damage) == 0 || rep.Damage[0].Kind != "content" ||
		!strings.Contains(rep.Damage[0].What, "logics: the rows of logic purchase_item differ") {
		t.Errorf("a changed row: %+v", rep)
	}
	if rep := verify(true); !rep.Repaired {
		t.Errorf("repair of a changed row: %+v", rep)
	}
	c := openCache(t, dir)
	js, err := c.Store().LogicJSON(ctx, shopDev, "purchase_item")
	if err != nil || strings.Contains(string(js), "DROP TABLE") {
		t.Errorf("after the repair, purchase_item = %s, %v", js, err)
	}
}

// TestVerifyRebuilds: verify rebuilds the index once to compare it, not
// at all when it found damage it is not to repair (the copy would serve
// only a repair), and once when it repairs: the repaired index is checked
// against the copy it was made from.
func TestVerifyRebuilds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	importDoc(t, dir, shopDoc(t, "rel_42", 42, nil))
	rebuilds := func(repair bool) (VerifyReport, int) {
		t.Helper()
		var buf bytes.Buffer
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		rep, err := Verify(ctx, dir, repair, log)
		if err != nil {
			t.Fatalf("Verify(repair %v): %v", repair, err)
		}
		return rep, strings.Count(buf.String(), "rebuilding the index from the release files")
	}
	if rep, n := rebuilds(false); !rep.Healthy() || n != 1 {
		t.Errorf("a healthy index: %+v after %d rebuilds, want healthy after 1", rep, n)
	}
	flipIndexByte(t, filepath.Join(dir, "index.db"), `{"name":"author_id"`)
	if rep, n := rebuilds(false); rep.Healthy() || n != 0 {
		t.Errorf("a damaged page: %+v after %d rebuilds, want damage after 0", rep, n)
	}
	if rep, n := rebuilds(true); !rep.Repaired || n != 1 {
		t.Errorf("a damaged page repaired: %+v after %d rebuilds, want repaired after 1", rep, n)
	}
	if rep, n := rebuilds(false); !rep.Healthy() || len(rep.Damage) != 0 || n != 1 {
		t.Errorf("after the repair: %+v after %d rebuilds, want healthy after 1", rep, n)
	}
}

// TestVerifyWithoutIndex: a cache without an index says so.
func TestVerifyWithoutIndex(t *testing.T) {
	if _, err := Verify(context.Background(), t.TempDir(), false, nil); !errors.Is(err, ErrNoIndex) {
		t.Errorf("Verify of an empty folder: %v, want ErrNoIndex", err)
	}
}
