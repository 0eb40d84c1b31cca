package indexer

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/storetest"
)

// TestHugeIndexDamagedPageRebuilt damages pages in the middle of a real
// 100,000-table index: the next open must find the damage before any
// answer is served and rebuild the index from the release file, and the
// answers after are the answers before. Opening an undamaged index skips
// the whole-file check (the stamp); a changed file is checked whole.
func TestHugeIndexDamagedPageRebuilt(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("imports 100,000 tables twice; run without -race and -short")
	}
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := storetest.WriteRelease(f, storetest.Huge); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Import(ctx, dir, file, nil, testLog(t)); err != nil {
		t.Fatal(err)
	}
	target := store.Target{Project: "big", Environment: "dev"}
	tables, _ := storetest.Names(storetest.Huge)
	probe := []string{tables[0], tables[len(tables)/3], tables[len(tables)/2], tables[len(tables)*2/3], tables[len(tables)-1]}
	answers := func(c *Cache) []string {
		t.Helper()
		var out []string
		for _, name := range probe {
			js, err := c.Store().TableJSON(ctx, target, "", name)
			if err != nil && store.ErrorCode(err) != store.Ambiguous {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, fmt.Sprint(string(js), err))
		}
		return out
	}
	c, err := Open(ctx, dir, testLog(t))
	if err != nil {
		t.Fatal(err)
	}
	before := answers(c)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// Scribble over four pages spread through the file.
	index := filepath.Join(dir, "index.db")
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	page := int(data[16])<<8 | int(data[17]) // the header's page size
	pages := len(data) / page
	for _, at := range []int{pages / 5, pages * 2 / 5, pages * 3 / 5, pages * 4 / 5} {
		for i := at * page; i < (at+1)*page; i++ {
			data[i] = byte(i*7 + 13)
		}
	}
	if err := os.WriteFile(index, data, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("damaged 4 of %d pages of a %d MB index", pages, len(data)>>20)

	var log bytes.Buffer
	c, err = Open(ctx, dir, slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatalf("open the damaged index: %v", err)
	}
	defer c.Close()
	if !strings.Contains(log.String(), "rebuilding it from the release files") {
		t.Fatalf("the damage went unnoticed at open; log:\n%s", log.String())
	}
	after := answers(c)
	for i := range probe {
		if after[i] != before[i] {
			t.Errorf("%s after the rebuild differs:\nbefore %.200s\nafter  %.200s", probe[i], before[i], after[i])
		}
	}
	t.Logf("open log: %s", strings.TrimSpace(log.String()))
}
