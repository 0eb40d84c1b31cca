package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestRemove(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rel_1.json")
	writeFile(t, path, "one")

	finish, err := Remove(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after Remove, %s is still there (%v)", path, err)
	}
	if got := names(t, dir); len(got) != 1 || !isTemp(got[0]) {
		t.Errorf("after Remove, the folder holds %v, want one temp file", got)
	}
	finish(false) // rolled back: the file is back
	if got := readFile(t, path); got != "one" {
		t.Errorf("after finish(false), %s holds %q", path, got)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"rel_1.json"}) {
		t.Errorf("after finish(false), the folder holds %v", got)
	}

	finish, err = Remove(path)
	if err != nil {
		t.Fatal(err)
	}
	finish(true)
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("after finish(true), the folder holds %v", got)
	}

	// Nothing to remove: no error, and finish does nothing.
	finish, err = Remove(path)
	if err != nil {
		t.Fatal(err)
	}
	finish(false)
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("removing nothing left %v", got)
	}
}
