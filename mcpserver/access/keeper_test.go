package access

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeClock is the keeper's clock in tests: it moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newTestKeeper returns the keeper of f on a fake clock that starts at
// the keeper's first read.
func newTestKeeper(t *testing.T, f *File) (*Keeper, *fakeClock) {
	t.Helper()
	k, err := NewKeeper(f)
	if err != nil {
		t.Fatalf("NewKeeper: %v", err)
	}
	k.mu.Lock()
	clk := &fakeClock{t: k.checked}
	k.now = clk.Now
	k.mu.Unlock()
	return k, clk
}

// justBefore is the longest the keeper's clock can advance without it
// looking at the file again.
const justBefore = RecheckEvery - time.Nanosecond

func wantFound(t *testing.T, k *Keeper, secret string, want Token) {
	t.Helper()
	got, err := k.Lookup(secret)
	if err != nil {
		t.Fatalf("Lookup(%s…) = %v, want token %q", secret[:min(len(secret), 12)], err, want.Name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Lookup(%s…) (-want +got):\n%s", secret[:min(len(secret), 12)], diff)
	}
}

func wantUnknown(t *testing.T, k *Keeper, secret string) {
	t.Helper()
	got, err := k.Lookup(secret)
	if !errors.Is(err, ErrUnknownToken) {
		t.Fatalf("Lookup(%q…) = %+v, %v; want ErrUnknownToken", secret[:min(len(secret), 12)], got, err)
	}
	if diff := cmp.Diff(Token{}, got); diff != "" {
		t.Fatalf("Lookup(%q…) returned a token with ErrUnknownToken (-want +got):\n%s", secret[:min(len(secret), 12)], diff)
	}
}

// wantFileError checks that Lookup refuses the secret with the file's
// error rather than ErrUnknownToken.
func wantFileError(t *testing.T, k *Keeper, secret string) error {
	t.Helper()
	got, err := k.Lookup(secret)
	if err == nil {
		t.Fatalf("Lookup = %+v, nil; want the file's error", got)
	}
	if errors.Is(err, ErrUnknownToken) {
		t.Fatalf("Lookup = %v; want the file's error, not ErrUnknownToken", err)
	}
	if diff := cmp.Diff(Token{}, got); diff != "" {
		t.Fatalf("Lookup returned a token with an error (-want +got):\n%s", diff)
	}
	return err
}

func wantCount(t *testing.T, k *Keeper, want int) {
	t.Helper()
	n, err := k.Count()
	if err != nil || n != want {
		t.Fatalf("Count() = %d, %v; want %d, nil", n, err, want)
	}
}

func wantIssued(t *testing.T, k *Keeper, want bool) {
	t.Helper()
	got, err := k.Issued()
	if err != nil || got != want {
		t.Fatalf("Issued() = %v, %v; want %v, nil", got, err, want)
	}
}

// replaceFile writes data to path through a new file and a rename, as
// File does, so that the inode changes.
func replaceFile(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".test-tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestRecheckEvery(t *testing.T) {
	// The package promises a revoked token stops working within a second.
	if RecheckEvery <= 0 || RecheckEvery > time.Second {
		t.Errorf("RecheckEvery = %v, want at most a second", RecheckEvery)
	}
}

func TestNewKeeperMissingFile(t *testing.T) {
	for _, dir := range []string{t.TempDir(), filepath.Join(t.TempDir(), "no", "folder")} {
		_, statErr := os.Stat(dir)
		k, clk := newTestKeeper(t, NewFile(dir))
		wantCount(t, k, 0)
		wantIssued(t, k, false)
		wantUnknown(t, k, "")
		wantUnknown(t, k, "hubsnap_"+strings.Repeat("A", 43))
		clk.Advance(10 * RecheckEvery)
		wantCount(t, k, 0)
		wantIssued(t, k, false)
		wantUnknown(t, k, "hubsnap_"+strings.Repeat("A", 43))
		if _, err := os.Stat(dir); errors.Is(statErr, os.ErrNotExist) && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the keeper created the config folder %s (stat: %v)", dir, err)
		}
	}
}

func TestNewKeeperCorrupt(t *testing.T) {
	goodHash := "sha256:" + strings.Repeat("0f", 32)
	for name, content := range map[string]string{
		"not JSON":      "{",
		"bad hash":      `{"tokens":[{"name":"a","scopes":["*"],"hash":"sha256:00"}]}`,
		"unknown scope": `{"tokens":[{"name":"a","scopes":["table:write"],"hash":"` + goodHash + `"}]}`,
		"duplicate": `{"tokens":[{"name":"a","scopes":["*"],"hash":"` + goodHash + `"},` +
			`{"name":"a","scopes":["*"],"hash":"sha256:` + strings.Repeat("1e", 32) + `"}]}`,
		"bad name": `{"tokens":[{"name":".a","scopes":["*"],"hash":"` + goodHash + `"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := NewFile(t.TempDir())
			if err := os.WriteFile(f.Path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			k, err := NewKeeper(f)
			if err == nil {
				t.Fatal("NewKeeper of a corrupt file succeeded")
			}
			if k != nil {
				t.Error("NewKeeper returned a keeper with its error")
			}
			if !strings.Contains(err.Error(), f.Path) {
				t.Errorf("error %q does not mention the file %s", err, f.Path)
			}
		})
	}
	t.Run("folder in the way", func(t *testing.T) {
		f := NewFile(t.TempDir())
		if err := os.Mkdir(f.Path, 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := NewKeeper(f); err == nil {
			t.Error("NewKeeper of a folder succeeded")
		}
	})
	t.Run("file in the way", func(t *testing.T) {
		parent := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(parent, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := NewKeeper(NewFile(parent)); err == nil {
			t.Error("NewKeeper below a regular file succeeded")
		}
	})
}

func TestKeeperLookup(t *testing.T) {
	f := NewFile(t.TempDir())
	s1, t1 := mustCreate(t, f, "ci", "table:read", "logic:*")
	s2, t2 := mustCreate(t, f, "laptop", "*")
	k, _ := newTestKeeper(t, f)

	wantFound(t, k, s1, t1)
	wantFound(t, k, s2, t2)
	got, err := k.Lookup(s1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "ci" {
		t.Errorf("Name = %q, want ci", got.Name)
	}
	if diff := cmp.Diff([]string{"table:read", "logic:*"}, got.Scopes); diff != "" {
		t.Errorf("Scopes (-want +got):\n%s", diff)
	}
	wantCount(t, k, 2)
	wantIssued(t, k, true)

	flip := []byte(s1)
	if flip[20] == 'A' {
		flip[20] = 'B'
	} else {
		flip[20] = 'A'
	}
	for name, secret := range map[string]string{
		"empty":            "",
		"10,000 bytes":     strings.Repeat("x", 10_000),
		"10,000 from real": s1 + strings.Repeat("x", 10_000-len(s1)),
		"257 bytes":        s1 + strings.Repeat("x", 257-len(s1)),
		"prefix only":      "hubsnap_",
		"one char changed": string(flip),
		"trailing newline": s1 + "\n",
		"leading space":    " " + s1,
		"truncated":        s1[:len(s1)-1],
		"without prefix":   strings.TrimPrefix(s1, "hubsnap_"),
		"upper case":       strings.ToUpper(s1),
		"the hash":         t1.Hash,
		"the hex hash":     strings.TrimPrefix(t1.Hash, "sha256:"),
		"the name":         "ci",
		"both secrets":     s1 + s2,
	} {
		t.Run(name, func(t *testing.T) {
			wantUnknown(t, k, secret)
		})
	}
	// Still fine after the refusals.
	wantFound(t, k, s1, t1)
}

func TestKeeperLookupScopesAreCopies(t *testing.T) {
	f := NewFile(t.TempDir())
	secret, tok := mustCreate(t, f, "ci", "table:read", "release:read")
	k, _ := newTestKeeper(t, f)

	got, err := k.Lookup(secret)
	if err != nil {
		t.Fatal(err)
	}
	got.Scopes[0] = "*"
	got.Scopes = append(got.Scopes[:1], "logic:read", "table:*")
	got.Name = "changed"

	again, err := k.Lookup(secret)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tok, again); diff != "" {
		t.Errorf("Lookup after changing an earlier result (-want +got):\n%s", diff)
	}
	again.Scopes[1] = "*"
	wantFound(t, k, secret, tok)
}

// A token revoked by another process is refused by the very next lookup,
// without waiting for RecheckEvery (issue 23, item 7).
func TestKeeperSeesRevoke(t *testing.T) {
	dir := t.TempDir()
	s1, t1 := mustCreate(t, NewFile(dir), "ci", "table:read")
	s2, t2 := mustCreate(t, NewFile(dir), "laptop", "*")
	k, _ := newTestKeeper(t, NewFile(dir))
	wantFound(t, k, s1, t1)

	other := NewFile(dir) // another process
	if _, err := other.Revoke("ci"); err != nil {
		t.Fatal(err)
	}
	wantUnknown(t, k, s1)
	wantFound(t, k, s2, t2)
	wantCount(t, k, 1)
	wantIssued(t, k, true)
}

// A token created by another process works for the very next lookup.
func TestKeeperSeesCreate(t *testing.T) {
	dir := t.TempDir()
	s1, t1 := mustCreate(t, NewFile(dir), "ci", "table:read")
	k, _ := newTestKeeper(t, NewFile(dir))
	wantCount(t, k, 1)

	s2, t2 := mustCreate(t, NewFile(dir), "laptop", "*:read")
	wantFound(t, k, s2, t2)
	wantFound(t, k, s1, t1)
	wantCount(t, k, 2)
}

// TestKeeperSeesFirstToken starts with no file: the first token issued
// by another process counts at once, and from then on tokens were issued.
func TestKeeperSeesFirstToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	k, _ := newTestKeeper(t, NewFile(dir))
	wantIssued(t, k, false)

	secret, tok := mustCreate(t, NewFile(dir), "ci", "*")
	wantIssued(t, k, true)
	wantFound(t, k, secret, tok)
	wantCount(t, k, 1)
}

// TestKeeperRecheckWindow: a change the stat cannot see (rewritten in
// place, same size, its modification time put back) counts once
// RecheckEvery has passed since the file was last read, and the window
// starts again at each read.
func TestKeeperRecheckWindow(t *testing.T) {
	a, b, sa, sb, ta, tb := twoFiles(t)
	f := NewFile(t.TempDir())
	replaceFile(t, f.Path, a)
	k, clk := newTestKeeper(t, f)
	clk.Advance(3 * RecheckEvery)
	wantFound(t, k, sa, ta) // read again: the window starts here

	hidden := func(data []byte) {
		t.Helper()
		before, err := os.Stat(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.Path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f.Path, before.ModTime(), before.ModTime()); err != nil {
			t.Fatal(err)
		}
		after, err := os.Stat(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if changed(before, after) {
			t.Fatal("test setup: want a change the stat cannot see")
		}
	}
	hidden(b)
	clk.Advance(justBefore)
	wantFound(t, k, sa, ta)
	clk.Advance(time.Nanosecond)
	wantUnknown(t, k, sa)
	wantFound(t, k, sb, tb)

	hidden(a)
	clk.Advance(RecheckEvery / 2)
	wantFound(t, k, sb, tb)
	clk.Advance(RecheckEvery / 2)
	wantFound(t, k, sa, ta)
	wantUnknown(t, k, sb)
}

// TestKeeperCountAndIssuedRecheck checks that Count and Issued, not only
// Lookup, look at the file again.
func TestKeeperCountAndIssuedRecheck(t *testing.T) {
	dir := t.TempDir()
	k, clk := newTestKeeper(t, NewFile(dir))
	mustCreate(t, NewFile(dir), "a", "*")
	clk.Advance(RecheckEvery)
	wantCount(t, k, 1)

	mustCreate(t, NewFile(dir), "b", "*")
	clk.Advance(RecheckEvery)
	wantIssued(t, k, true)
	wantCount(t, k, 2)

	if err := os.Remove(NewFile(dir).Path); err != nil {
		t.Fatal(err)
	}
	clk.Advance(RecheckEvery)
	wantIssued(t, k, false)
	wantCount(t, k, 0)
}

func TestKeeperIssued(t *testing.T) {
	dir := t.TempDir()
	f := NewFile(dir)
	s1, _ := mustCreate(t, f, "ci", "*")
	k, clk := newTestKeeper(t, NewFile(dir))
	wantIssued(t, k, true)

	// Revoking the last token leaves the file, with no tokens: tokens are
	// still asked for.
	if _, err := f.Revoke("ci"); err != nil {
		t.Fatal(err)
	}
	clk.Advance(RecheckEvery)
	wantIssued(t, k, true)
	wantCount(t, k, 0)
	wantUnknown(t, k, s1)
	clk.Advance(5 * RecheckEvery)
	wantIssued(t, k, true)

	// Deleting the file opens the server again, at once.
	if err := os.Remove(f.Path); err != nil {
		t.Fatal(err)
	}
	wantIssued(t, k, false)
	wantCount(t, k, 0)
	wantUnknown(t, k, s1)

	// And a new token closes it again.
	s2, t2 := mustCreate(t, f, "again", "table:*")
	clk.Advance(RecheckEvery)
	wantIssued(t, k, true)
	wantFound(t, k, s2, t2)
}

func TestKeeperNewOnEmptyFile(t *testing.T) {
	f := NewFile(t.TempDir())
	mustCreate(t, f, "ci", "*")
	if _, err := f.Revoke("ci"); err != nil {
		t.Fatal(err)
	}
	k, _ := newTestKeeper(t, f)
	wantIssued(t, k, true)
	wantCount(t, k, 0)
}

func TestKeeperCorruptWhileRunning(t *testing.T) {
	for _, how := range []string{"replaced", "in place"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			f := NewFile(dir)
			s1, t1 := mustCreate(t, f, "ci", "*")
			k, clk := newTestKeeper(t, f)
			good := readRaw(t, f.Path)

			write := func(data []byte) {
				t.Helper()
				if how == "replaced" {
					replaceFile(t, f.Path, data)
				} else if err := os.WriteFile(f.Path, data, 0o600); err != nil {
					t.Fatal(err)
				}
			}

			write([]byte("{ this is not json"))
			// Seen at once: its size changed.
			err := wantFileError(t, k, s1)
			if !strings.Contains(err.Error(), f.Path) {
				t.Errorf("Lookup error %q does not mention the file %s", err, f.Path)
			}
			// Every secret is refused with the file's error, whatever it is.
			wantFileError(t, k, "")
			wantFileError(t, k, "nope")
			wantFileError(t, k, strings.Repeat("x", 10_000))
			if _, err := k.Count(); err == nil {
				t.Error("Count of a corrupt file returned no error")
			}
			if issued, err := k.Issued(); err == nil || !issued {
				t.Errorf("Issued() of a corrupt file = %v, %v; want true and an error", issued, err)
			}

			// Still refused later, while it stays corrupt.
			clk.Advance(3 * RecheckEvery)
			wantFileError(t, k, s1)

			// Fixed: tokens work again, at once.
			write(good)
			wantFound(t, k, s1, t1)
			wantUnknown(t, k, "nope")
			wantCount(t, k, 1)
			wantIssued(t, k, true)
		})
	}
}

// TestKeeperCorruptThenDeleted checks that a corrupt file removed means
// no tokens, not an error.
func TestKeeperCorruptThenDeleted(t *testing.T) {
	f := NewFile(t.TempDir())
	s1, _ := mustCreate(t, f, "ci", "*")
	k, clk := newTestKeeper(t, f)
	replaceFile(t, f.Path, []byte("[]"))
	clk.Advance(RecheckEvery)
	wantFileError(t, k, s1)

	if err := os.Remove(f.Path); err != nil {
		t.Fatal(err)
	}
	clk.Advance(RecheckEvery)
	wantIssued(t, k, false)
	wantCount(t, k, 0)
	wantUnknown(t, k, s1)
}

// TestKeeperCorruptByOtherMeans covers files that pass JSON decoding but
// not the checks of Read.
func TestKeeperCorruptByOtherMeans(t *testing.T) {
	for name, content := range map[string]string{
		"bad hash":      `{"tokens":[{"name":"x","scopes":["*"],"hash":"sha256:zz"}]}`,
		"unknown scope": `{"tokens":[{"name":"x","scopes":["table:write"],"hash":"sha256:` + strings.Repeat("ab", 32) + `"}]}`,
		"bad name":      `{"tokens":[{"name":"x y","scopes":["*"],"hash":"sha256:` + strings.Repeat("ab", 32) + `"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := NewFile(t.TempDir())
			s1, t1 := mustCreate(t, f, "ci", "*")
			k, clk := newTestKeeper(t, f)
			good := readRaw(t, f.Path)
			replaceFile(t, f.Path, []byte(content))
			clk.Advance(RecheckEvery)
			wantFileError(t, k, s1)
			replaceFile(t, f.Path, good)
			clk.Advance(RecheckEvery)
			wantFound(t, k, s1, t1)
		})
	}
}

// twoFiles returns two token files of exactly the same size, each with one
// token, and those tokens' secrets.
func twoFiles(t *testing.T) (a, b []byte, sa, sb string, ta, tb Token) {
	t.Helper()
	fa := NewFile(t.TempDir())
	fb := NewFile(t.TempDir())
	sa, ta = mustCreate(t, fa, "aa", "*")
	sb, tb = mustCreate(t, fb, "bb", "*")
	a, b = readRaw(t, fa.Path), readRaw(t, fb.Path)
	if len(a) != len(b) {
		t.Fatalf("test files differ in size: %d and %d", len(a), len(b))
	}
	return a, b, sa, sb, ta, tb
}

// TestKeeperDetectsNewInode changes only the inode: same size, same
// modification time. The next lookup sees it.
func TestKeeperDetectsNewInode(t *testing.T) {
	a, b, sa, sb, ta, tb := twoFiles(t)
	f := NewFile(t.TempDir())
	replaceFile(t, f.Path, a)
	k, _ := newTestKeeper(t, f)
	wantFound(t, k, sa, ta)
	before, err := os.Stat(f.Path)
	if err != nil {
		t.Fatal(err)
	}

	replaceFile(t, f.Path, b)
	if err := os.Chtimes(f.Path, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, after) || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("test setup: want a new inode with the same size and time")
	}

	wantUnknown(t, k, sa)
	wantFound(t, k, sb, tb)
}

// TestKeeperDetectsNewModTime changes only the modification time: same
// inode, same size.
func TestKeeperDetectsNewModTime(t *testing.T) {
	a, b, sa, sb, ta, tb := twoFiles(t)
	f := NewFile(t.TempDir())
	replaceFile(t, f.Path, a)
	k, clk := newTestKeeper(t, f)
	wantFound(t, k, sa, ta)
	before, err := os.Stat(f.Path)
	if err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(f.Path, b, 0o600); err != nil { // in place
		t.Fatal(err)
	}
	mt := before.ModTime().Add(time.Second)
	if err := os.Chtimes(f.Path, mt, mt); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || after.Size() != before.Size() || after.ModTime().Equal(before.ModTime()) {
		t.Fatal("test setup: want the same inode and size with a new time")
	}

	clk.Advance(RecheckEvery)
	wantUnknown(t, k, sa)
	wantFound(t, k, sb, tb)
}

// TestKeeperDetectsNewSize changes only the size: same inode, same
// modification time.
func TestKeeperDetectsNewSize(t *testing.T) {
	dir := t.TempDir()
	f := NewFile(dir)
	sa, ta := mustCreate(t, f, "aa", "*")
	k, clk := newTestKeeper(t, f)
	before, err := os.Stat(f.Path)
	if err != nil {
		t.Fatal(err)
	}

	// Another file with one more token, copied in place.
	g := NewFile(t.TempDir())
	replaceFile(t, g.Path, readRaw(t, f.Path))
	sb, tb := mustCreate(t, g, "bb", "*")
	if err := os.WriteFile(f.Path, readRaw(t, g.Path), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(f.Path, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || after.Size() == before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("test setup: want the same inode and time with a new size")
	}

	clk.Advance(RecheckEvery)
	wantFound(t, k, sa, ta)
	wantFound(t, k, sb, tb)
	wantCount(t, k, 2)
}

// TestKeeperConcurrent runs lookups from many goroutines while other
// "processes" issue and revoke tokens and the clock moves: run with -race.
func TestKeeperConcurrent(t *testing.T) {
	dir := t.TempDir()
	stable, stableTok := mustCreate(t, NewFile(dir), "stable", "*")
	k, clk := newTestKeeper(t, NewFile(dir))

	const writers = 5
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 100)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	var readers sync.WaitGroup
	for range 8 {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				got, err := k.Lookup(stable)
				if err != nil {
					report(fmt.Errorf("Lookup(stable): %v", err))
					return
				}
				if got.Name != stableTok.Name {
					report(fmt.Errorf("Lookup(stable) = %q", got.Name))
					return
				}
				got.Scopes[0] = "mutated"
				if _, err := k.Lookup("nope"); !errors.Is(err, ErrUnknownToken) {
					report(fmt.Errorf("Lookup(nope) = %v", err))
					return
				}
				if _, err := k.Count(); err != nil {
					report(fmt.Errorf("Count: %v", err))
					return
				}
				if ok, err := k.Issued(); !ok || err != nil {
					report(fmt.Errorf("Issued = %v, %v", ok, err))
					return
				}
				clk.Advance(RecheckEvery / 4)
			}
		})
	}
	secrets := make([]string, writers)
	for i := range writers {
		wg.Go(func() {
			f := NewFile(dir)
			name := fmt.Sprintf("w%d", i)
			for j := range 5 {
				s, _, err := f.Create(name, []string{"*"}, testNow)
				if err != nil {
					report(err)
					return
				}
				if j < 4 {
					if _, err := f.Revoke(name); err != nil {
						report(err)
						return
					}
				} else {
					secrets[i] = s
				}
			}
		})
	}
	wg.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	clk.Advance(RecheckEvery)
	wantCount(t, k, 1+writers)
	wantFound(t, k, stable, stableTok)
	for i, s := range secrets {
		got, err := k.Lookup(s)
		if err != nil || got.Name != fmt.Sprintf("w%d", i) {
			t.Errorf("Lookup(secret of w%d) = %+v, %v", i, got, err)
		}
	}
}

// TestKeeperFolderInTheWay covers a file that cannot even be looked at
// (its config folder replaced by a regular file), then goes missing: the
// keeper must drop the error rather than keep refusing.
func TestKeeperFolderInTheWay(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	f := NewFile(dir)
	s1, t1 := mustCreate(t, f, "ci", "*")
	k, clk := newTestKeeper(t, f)
	good := readRaw(t, f.Path)

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("a file, not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	clk.Advance(RecheckEvery)
	wantFileError(t, k, s1)
	if issued, err := k.Issued(); err == nil || !issued {
		t.Errorf("Issued() = %v, %v; want true and an error", issued, err)
	}
	if _, err := k.Count(); err == nil {
		t.Error("Count() returned no error")
	}

	// The obstacle goes: no file, so no tokens and no error.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	clk.Advance(RecheckEvery)
	wantIssued(t, k, false)
	wantCount(t, k, 0)
	wantUnknown(t, k, s1)

	// And the file comes back.
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	replaceFile(t, f.Path, good)
	clk.Advance(RecheckEvery)
	wantFound(t, k, s1, t1)
}

// Has follows the file like Lookup: a revoked token's hash is gone once the
// keeper looks again, and a token made again under the same name has
// another hash; a file that cannot be read gives no verdict.
func TestKeeperHas(t *testing.T) {
	f := NewFile(t.TempDir())
	_, tok, err := f.Create("alice", []string{"*"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	k, clk := newTestKeeper(t, f)
	if ok, err := k.Has(tok.Hash); !ok || err != nil {
		t.Fatalf("Has(alice) = %v, %v; want true", ok, err)
	}
	if ok, err := k.Has("sha256:" + strings.Repeat("0", 64)); ok || err != nil {
		t.Errorf("Has(unknown) = %v, %v; want false", ok, err)
	}
	if _, err := f.Revoke("alice"); err != nil {
		t.Fatal(err)
	}
	_, again, err := f.Create("alice", []string{"*"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := k.Has(tok.Hash); ok || err != nil {
		t.Errorf("Has(revoked alice) = %v, %v; want false", ok, err)
	}
	if ok, err := k.Has(again.Hash); !ok || err != nil {
		t.Errorf("Has(new alice) = %v, %v; want true", ok, err)
	}
	if err := os.WriteFile(f.Path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	clk.Advance(RecheckEvery)
	if ok, err := k.Has(again.Hash); ok || err == nil {
		t.Errorf("Has with a broken file = %v, %v; want an error", ok, err)
	}
}
