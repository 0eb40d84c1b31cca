package atomicfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readFile(tb testing.TB, path string) string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(data)
}

func writeFile(tb testing.TB, path, data string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// names lists the names in dir, sorted.
func names(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	return got
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "contexts.json")
	for _, content := range []string{"first\n", "second, longer\n", ""} {
		if err := WriteFile(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, path); got != content {
			t.Errorf("content = %q, want %q", got, content)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode().Perm(); got != 0o600 {
			t.Errorf("mode = %v, want 0600", got)
		}
		if got, want := names(t, dir), []string{"contexts.json"}; !slices.Equal(got, want) {
			t.Errorf("folder holds %q, want %q (no temp file left)", got, want)
		}
	}
}

// An existing file keeps neither its mode nor its content: the new file is
// 0600 whatever the old one was.
func TestWriteFileReplacesMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("after WriteFile: %v, %v; want mode 0600", info.Mode(), err)
	}
}

func TestWriteFileFails(t *testing.T) {
	dir := t.TempDir()
	// No such folder.
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("x")); err == nil {
		t.Error("WriteFile into a missing folder succeeded")
	}
	// A folder where the file should be: the rename fails, nothing is left.
	target := filepath.Join(dir, "taken")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "inside"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("x")); err == nil {
		t.Error("WriteFile over a non-empty folder succeeded")
	}
	if got, want := names(t, dir), []string{"taken"}; !slices.Equal(got, want) {
		t.Errorf("folder holds %q after a failed write, want %q", got, want)
	}
}

func TestWriteTemp(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, "rel_42.json")
	tmp, err := WriteTemp(final, []byte("data"))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(tmp) != dir {
		t.Errorf("temp file %s is not in %s", tmp, dir)
	}
	if base := filepath.Base(tmp); !strings.HasPrefix(base, ".rel_42.json.part-") || !isTemp(base) {
		t.Errorf("temp file name %q, want .rel_42.json.part-*", base)
	}
	if got := readFile(t, tmp); got != "data" {
		t.Errorf("temp file holds %q", got)
	}
	if info, err := os.Stat(tmp); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("temp file: %v, %v; want mode 0600", info.Mode(), err)
	}
	if _, err := os.Stat(final); !os.IsNotExist(err) {
		t.Errorf("WriteTemp touched the final file: %v", err)
	}
}

func TestReplaceRestoresOnFailure(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, "r.json")
	writeFile(t, final, "old")

	tmp, err := WriteTemp(final, []byte("new"))
	if err != nil {
		t.Fatal(err)
	}
	finish, err := Replace(tmp, final)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, final); got != "new" {
		t.Errorf("after Replace: %q, want new", got)
	}
	finish(false)
	if got := readFile(t, final); got != "old" {
		t.Errorf("after finish(false): %q, want old", got)
	}
	if got, want := names(t, dir), []string{"r.json"}; !slices.Equal(got, want) {
		t.Errorf("after finish(false): folder holds %q, want %q", got, want)
	}

	// Without an old file, failing removes the new one.
	fresh := filepath.Join(dir, "fresh.json")
	tmp, _ = WriteTemp(fresh, []byte("x"))
	finish, err = Replace(tmp, fresh)
	if err != nil {
		t.Fatal(err)
	}
	finish(false)
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("fresh file after finish(false): %v", err)
	}

	// Success drops the kept copy.
	tmp, _ = WriteTemp(final, []byte("newer"))
	finish, _ = Replace(tmp, final)
	finish(true)
	if got := readFile(t, final); got != "newer" {
		t.Errorf("after finish(true): %q", got)
	}
	if got, want := names(t, dir), []string{"r.json"}; !slices.Equal(got, want) {
		t.Errorf("after finish(true): folder holds %q, want %q", got, want)
	}
}

func TestReplaceFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	final := filepath.Join(dir, "taken")
	if err := os.Mkdir(final, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(final, "inside"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tmp, err := WriteTemp(final, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Replace(tmp, final); err == nil {
		t.Fatal("Replace over a non-empty folder succeeded")
	}
	if got, want := names(t, dir), []string{"taken"}; !slices.Equal(got, want) {
		t.Errorf("after a failed Replace: folder holds %q, want %q", got, want)
	}
}

func TestSyncDir(t *testing.T) {
	dir := t.TempDir()
	if err := SyncDir(dir); err != nil {
		t.Errorf("SyncDir(%s) = %v", dir, err)
	}
	if err := SyncDir(filepath.Join(dir, "missing")); err == nil {
		t.Error("SyncDir of a missing folder succeeded")
	}
}
