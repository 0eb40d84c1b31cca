package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// An index is checked whole at open only when something but a trusting
// hubsnap changed it since: its own writes and closes keep the stamp.
func TestOpenChecksOnlyAChangedIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	open := func() *Store {
		t.Helper()
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	if !s.checked {
		t.Error("a new index was not checked")
	}
	put(t, s, sampleSnapshot(), true)
	if err := s.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = open()
	if s.checked {
		t.Error("an index only this hubsnap wrote was checked again")
	}
	// Writes while open, and the close, keep it trusted.
	put(t, s, smallSnapshot("shop", "rel_41", "dev", 41, "t", 20), false)
	s.Close()
	s = open()
	if s.checked {
		t.Error("an index written by a trusting hubsnap was checked again")
	}
	s.Close()

	// Anything else that changes the file, or its log, is checked.
	for name, change := range map[string]func(){
		"touched":   func() { later := time.Now().Add(time.Minute); os.Chtimes(path, later, later) },
		"log":       func() { os.WriteFile(path+"-wal", []byte("not a log"), 0o600) },
		"no stamp":  func() { os.Remove(path + stampSuffix) },
		"bad stamp": func() { os.WriteFile(path+stampSuffix, []byte("{"), 0o600) },
		"replaced":  func() { data, _ := os.ReadFile(path); os.Remove(path); os.WriteFile(path, data, 0o600) },
	} {
		change()
		s = open()
		if !s.checked {
			t.Errorf("%s: the index was not checked", name)
		}
		s.Close()
		if s = open(); s.checked {
			t.Errorf("%s: checked twice", name)
		}
		s.Close()
	}
}

// A page damaged behind hubsnap's back, with the file's time put back,
// passes the open; the first read that meets it fails as corrupt, and the
// next open checks the whole file and finds it.
func TestDamageFoundWhileRunningIsCheckedAtNextOpen(t *testing.T) {
	ctx := context.Background()
	data := closedIndex(t)
	path := filepath.Join(t.TempDir(), "index.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	// The pages of the columns table, which opening does not read.
	var pages []int
	rows, err := s.r.QueryContext(ctx, `SELECT pageno FROM dbstat WHERE name = 'columns' AND pagetype = 'leaf'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p int
		rows.Scan(&p)
		pages = append(pages, p)
	}
	rows.Close()
	s.Close()
	if len(pages) == 0 {
		t.Fatal("no pages of the columns table")
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	damaged, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := headerPageSize(t, damaged)
	for _, p := range pages { // keeping the size and the time
		for i := (p - 1) * page; i < p*page; i++ {
			damaged[i] = byte(i*7 + 13)
		}
	}
	if err := os.WriteFile(path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, info.ModTime(), info.ModTime())

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("open of a damaged index with its stamp: %v (the stamp should have spared the check)", err)
	}
	if s.checked {
		t.Fatal("checked, though the stamp matched")
	}
	_, err = s.TableJSON(ctx, shopDev, "main", "users")
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("read of a damaged page: %v, want ErrCorrupt", err)
	}
	s.Close()
	if _, err := os.Stat(path + stampSuffix); !os.IsNotExist(err) {
		t.Errorf("the stamp outlived a damaged page (%v)", err)
	}
	if _, err := Open(ctx, path); !errors.Is(err, ErrCorrupt) {
		t.Errorf("next open: %v, want ErrCorrupt", err)
	}
}
