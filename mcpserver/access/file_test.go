package access

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testNow is a creation time with a zone and sub-second digits, to check
// that Create stores UTC truncated to seconds.
var testNow = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.FixedZone("UTC+2", 2*60*60))

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// mustCreate creates a token and fails the test if it cannot.
func mustCreate(t *testing.T, f *File, name string, scopes ...string) (string, Token) {
	t.Helper()
	secret, tok, err := f.Create(name, scopes, testNow)
	if err != nil {
		t.Fatalf("Create(%q, %q): %v", name, scopes, err)
	}
	return secret, tok
}

func mustRead(t *testing.T, f *File) []Token {
	t.Helper()
	tokens, err := f.Read()
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return tokens
}

func readRaw(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func tokenNames(tokens []Token) []string {
	var names []string
	for _, t := range tokens {
		names = append(names, t.Name)
	}
	return names
}

func TestCheckName(t *testing.T) {
	good := []string{
		"a",
		"Z",
		"0",
		"ci",
		"laptop",
		"ci-bot",
		"ci_bot",
		"ci.bot",
		"CI.Bot_2-x",
		"1password",
		"a..b",
		"a-",
		"a.",
		"a_",
		"x" + strings.Repeat("-", 63),
		strings.Repeat("a", 64),
	}
	for _, name := range good {
		if err := CheckName(name); err != nil {
			t.Errorf("CheckName(%q) = %v, want nil", name, err)
		}
	}
	bad := []string{
		"",
		".",
		"..",
		".hidden",
		"-a",
		"_a",
		"/",
		"a/b",
		"../x",
		"a\\b",
		" ",
		"a b",
		" a",
		"a ",
		"a\n",
		"a\t",
		"a\x00",
		"a:b",
		"a*",
		"a@b",
		"a+b",
		strings.Repeat("a", 65),
		"x" + strings.Repeat("-", 64),
		"é",
		"café",
		"токен",
		"名前",
		"a\u200b",
		"ｆｕｌｌ", // fullwidth letters
	}
	for _, name := range bad {
		err := CheckName(name)
		if err == nil {
			t.Errorf("CheckName(%q) = nil, want an error", name)
			continue
		}
		if want := fmt.Sprintf("%q", name); !strings.Contains(err.Error(), want) {
			t.Errorf("CheckName(%q) error = %q, want it to name %s", name, err, want)
		}
	}
}

func TestNewFile(t *testing.T) {
	dir := t.TempDir()
	f := NewFile(dir)
	if want := filepath.Join(dir, "serve-tokens.json"); f.Path != want {
		t.Errorf("NewFile(%q).Path = %q, want %q", dir, f.Path, want)
	}
}

func TestCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config", "hubsnap")
	f := NewFile(dir)
	secret, tok, err := f.Create("ci", []string{" table:read ,logic:read", "table:read"}, testNow)
	if err != nil {
		t.Fatal(err)
	}

	// The secret.
	if !strings.HasPrefix(secret, "hubsnap_") {
		t.Errorf("secret %q does not start with hubsnap_", secret)
	}
	if len(secret) != 51 {
		t.Errorf("len(secret) = %d, want 51", len(secret))
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(secret, "hubsnap_"))
	if err != nil {
		t.Errorf("secret %q is not hubsnap_ and base64url: %v", secret, err)
	} else if len(raw) != 32 {
		t.Errorf("secret holds %d random bytes, want 32", len(raw))
	}

	// The token returned.
	want := Token{
		Name:      "ci",
		Scopes:    []string{"table:read", "logic:read"},
		Hash:      "sha256:" + sha256Hex(secret),
		CreatedAt: time.Date(2025, 3, 14, 13, 9, 26, 0, time.UTC),
	}
	if diff := cmp.Diff(want, tok); diff != "" {
		t.Errorf("Create returned (-want +got):\n%s", diff)
	}
	if tok.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt location = %v, want UTC", tok.CreatedAt.Location())
	}
	if tok.CreatedAt.Nanosecond() != 0 {
		t.Errorf("CreatedAt = %v, want it truncated to seconds", tok.CreatedAt)
	}

	// The file: never the secret, only its hash.
	data := readRaw(t, f.Path)
	if bytes.Contains(data, []byte(secret)) {
		t.Errorf("the token file holds the secret:\n%s", data)
	}
	if bytes.Contains(data, []byte(strings.TrimPrefix(secret, "hubsnap_"))) {
		t.Errorf("the token file holds the random part of the secret:\n%s", data)
	}
	if !bytes.Contains(data, []byte(`"sha256:`+sha256Hex(secret)+`"`)) {
		t.Errorf("the token file does not hold sha256:%s:\n%s", sha256Hex(secret), data)
	}
	if !regexp.MustCompile(`"hash": "sha256:[0-9a-f]{64}"`).Match(data) {
		t.Errorf("the token file has no hash of sha256: and 64 hex digits:\n%s", data)
	}
	if !json.Valid(data) {
		t.Errorf("the token file is not valid JSON:\n%s", data)
	}
	if !bytes.Contains(data, []byte(`"createdAt": "2025-03-14T13:09:26Z"`)) {
		t.Errorf("the token file does not hold the UTC creation time:\n%s", data)
	}

	// Permissions: the file for its owner only, the folder too.
	fi, err := os.Stat(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("token file mode = %v, want 0600", perm)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		di, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if perm := di.Mode().Perm(); perm != 0o700 {
			t.Errorf("created folder %s mode = %v, want 0700", d, perm)
		}
	}

	// Reading gives back the token.
	if diff := cmp.Diff([]Token{want}, mustRead(t, f)); diff != "" {
		t.Errorf("Read after Create (-want +got):\n%s", diff)
	}

	// No temporary file is left behind; only the file and its lock.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != FileName && e.Name() != FileName+".lock" {
			t.Errorf("unexpected file %s in the config folder", e.Name())
		}
	}
}

func TestCreateKeepsExistingFolderMode(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f := NewFile(dir)
	mustCreate(t, f, "a", "*")
	fi, err := os.Stat(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("token file mode = %v, want 0600", perm)
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := di.Mode().Perm(); perm != 0o755 {
		t.Errorf("existing folder mode = %v, want it left at 0755", perm)
	}
}

func TestCreateAppendsInOrder(t *testing.T) {
	f := NewFile(t.TempDir())
	var want []Token
	for i, name := range []string{"zeta", "alpha", "mid"} {
		now := testNow.Add(time.Duration(i) * time.Hour)
		_, tok, err := f.Create(name, []string{"*"}, now)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, tok)
	}
	if diff := cmp.Diff(want, mustRead(t, f)); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
}

func TestCreateSecretsDiffer(t *testing.T) {
	f := NewFile(t.TempDir())
	seen := map[string]bool{}
	hashes := map[string]bool{}
	for i := range 10 {
		secret, tok := mustCreate(t, f, fmt.Sprintf("t%d", i), "*")
		if seen[secret] {
			t.Fatalf("secret %q issued twice", secret)
		}
		seen[secret] = true
		if hashes[tok.Hash] {
			t.Fatalf("hash %q issued twice", tok.Hash)
		}
		hashes[tok.Hash] = true
	}
	// Also across folders.
	s1, _ := mustCreate(t, NewFile(t.TempDir()), "same", "*")
	s2, _ := mustCreate(t, NewFile(t.TempDir()), "same", "*")
	if s1 == s2 {
		t.Errorf("two tokens share the secret %q", s1)
	}
}

func TestCreateDuplicateName(t *testing.T) {
	f := NewFile(t.TempDir())
	mustCreate(t, f, "ci", "table:read")
	mustCreate(t, f, "laptop", "*")
	before := readRaw(t, f.Path)
	beforeInfo, err := os.Stat(f.Path)
	if err != nil {
		t.Fatal(err)
	}

	secret, tok, err := f.Create("ci", []string{"*"}, testNow)
	if err == nil {
		t.Fatal("Create of an existing name succeeded")
	}
	if secret != "" {
		t.Errorf("failed Create returned secret %q", secret)
	}
	if diff := cmp.Diff(Token{}, tok); diff != "" {
		t.Errorf("failed Create returned a token (-want +got):\n%s", diff)
	}
	if !strings.Contains(err.Error(), `"ci"`) {
		t.Errorf("error %q does not name the token", err)
	}
	if errors.Is(err, ErrNoToken) {
		t.Errorf("duplicate error %v is ErrNoToken", err)
	}
	if after := readRaw(t, f.Path); !bytes.Equal(before, after) {
		t.Errorf("failed Create changed the file:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	afterInfo, err := os.Stat(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(beforeInfo, afterInfo) {
		t.Error("failed Create replaced the file")
	}
}

func TestCreateInvalid(t *testing.T) {
	tests := []struct {
		name    string
		tname   string
		scopes  []string
		mention string
	}{
		{"bad name", "../evil", []string{"*"}, `"../evil"`},
		{"empty name", "", []string{"*"}, `""`},
		{"long name", strings.Repeat("n", 65), []string{"*"}, strings.Repeat("n", 65)},
		{"unknown scope", "ci", []string{"table:write"}, `"table:write"`},
		{"no scopes", "ci", nil, "no scopes"},
		{"only commas", "ci", []string{",,"}, "no scopes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Run("no folder", func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "cfg")
				f := NewFile(dir)
				secret, tok, err := f.Create(tt.tname, tt.scopes, testNow)
				if err == nil {
					t.Fatalf("Create(%q, %q) succeeded", tt.tname, tt.scopes)
				}
				if !strings.Contains(err.Error(), tt.mention) {
					t.Errorf("error %q does not mention %s", err, tt.mention)
				}
				if secret != "" || tok.Name != "" || tok.Hash != "" {
					t.Errorf("failed Create returned %q, %+v", secret, tok)
				}
				if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("failed Create made the config folder (stat: %v)", err)
				}
			})
			t.Run("existing file", func(t *testing.T) {
				dir := t.TempDir()
				f := NewFile(dir)
				mustCreate(t, f, "other", "*")
				before := readRaw(t, f.Path)
				entriesBefore, err := os.ReadDir(dir)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, err := f.Create(tt.tname, tt.scopes, testNow); err == nil {
					t.Fatalf("Create(%q, %q) succeeded", tt.tname, tt.scopes)
				}
				if after := readRaw(t, f.Path); !bytes.Equal(before, after) {
					t.Errorf("failed Create changed the file:\nbefore:\n%s\nafter:\n%s", before, after)
				}
				entriesAfter, err := os.ReadDir(dir)
				if err != nil {
					t.Fatal(err)
				}
				if len(entriesAfter) != len(entriesBefore) {
					t.Errorf("failed Create changed the folder: %v -> %v", entriesBefore, entriesAfter)
				}
			})
		})
	}
}

func TestCreateOnCorruptFile(t *testing.T) {
	dir := t.TempDir()
	f := NewFile(dir)
	if err := os.WriteFile(f.Path, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.Create("ci", []string{"*"}, testNow); err == nil {
		t.Fatal("Create over a corrupt file succeeded")
	} else if !strings.Contains(err.Error(), f.Path) {
		t.Errorf("error %q does not mention %s", err, f.Path)
	}
	if got := readRaw(t, f.Path); string(got) != "not json" {
		t.Errorf("Create overwrote a corrupt file with:\n%s", got)
	}
	if _, err := f.Revoke("ci"); err == nil || errors.Is(err, ErrNoToken) {
		t.Errorf("Revoke over a corrupt file: %v, want the file's error", err)
	}
}

func TestRevoke(t *testing.T) {
	f := NewFile(t.TempDir())
	_, a := mustCreate(t, f, "a", "table:read")
	_, b := mustCreate(t, f, "b", "logic:*")
	_, c := mustCreate(t, f, "c", "*")

	gone, err := f.Revoke("b")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b, gone); diff != "" {
		t.Errorf("Revoke returned (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Token{a, c}, mustRead(t, f)); diff != "" {
		t.Errorf("Read after Revoke (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("token file mode after Revoke = %v, want 0600", perm)
	}

	// Unknown names, including one just revoked.
	before := readRaw(t, f.Path)
	for _, name := range []string{"b", "B", "nope", "", "a "} {
		gone, err := f.Revoke(name)
		if !errors.Is(err, ErrNoToken) {
			t.Errorf("Revoke(%q) = %v, want ErrNoToken", name, err)
		} else if !strings.Contains(err.Error(), fmt.Sprintf("%q", name)) {
			t.Errorf("Revoke(%q) error %q does not name the token", name, err)
		}
		if diff := cmp.Diff(Token{}, gone); diff != "" {
			t.Errorf("Revoke(%q) returned a token (-want +got):\n%s", name, diff)
		}
	}
	if after := readRaw(t, f.Path); !bytes.Equal(before, after) {
		t.Errorf("failed Revoke changed the file:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// Revoking the rest leaves an empty list, not a missing file.
	for _, name := range []string{"c", "a"} {
		if _, err := f.Revoke(name); err != nil {
			t.Fatalf("Revoke(%q): %v", name, err)
		}
	}
	tokens, err := f.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 0 {
		t.Errorf("Read after revoking all = %+v, want none", tokens)
	}
	var d struct {
		Tokens []Token `json:"tokens"`
	}
	data := readRaw(t, f.Path)
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	if d.Tokens == nil {
		t.Errorf("file after revoking all = %s, want an empty tokens list", data)
	}

	// A name can be reused once revoked, with a new secret.
	mustCreate(t, f, "b", "*")
}

func TestRevokeMissingFile(t *testing.T) {
	f := NewFile(filepath.Join(t.TempDir(), "cfg"))
	if _, err := f.Revoke("ci"); !errors.Is(err, ErrNoToken) {
		t.Fatalf("Revoke on a missing file = %v, want ErrNoToken", err)
	}
	// Revoking nothing must not create the file: a server treats an
	// existing file as "tokens were issued here".
	if _, err := os.Stat(f.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Revoke created the token file (stat: %v)", err)
	}
}

func TestReadMissing(t *testing.T) {
	for _, path := range []string{
		filepath.Join(t.TempDir(), FileName),
		filepath.Join(t.TempDir(), "no", "such", "folder", FileName),
	} {
		tokens, err := (&File{Path: path}).Read()
		if err != nil || tokens != nil {
			t.Errorf("Read(%s) = %v, %v; want nil, nil", path, tokens, err)
		}
	}
}

func TestReadValidHandWritten(t *testing.T) {
	f := NewFile(t.TempDir())
	h := "sha256:" + strings.Repeat("ab", 32)
	content := `{"tokens":[{"name":"x","scopes":["*:read"],"hash":"` + h + `","createdAt":"2024-01-02T03:04:05Z","extra":1}],"version":7}`
	if err := os.WriteFile(f.Path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	want := []Token{{
		Name:      "x",
		Scopes:    []string{"*:read"},
		Hash:      h,
		CreatedAt: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
	}}
	if diff := cmp.Diff(want, mustRead(t, f)); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}

	for _, empty := range []string{`{}`, `{"tokens":[]}`, `{"tokens":null}`} {
		if err := os.WriteFile(f.Path, []byte(empty), 0o600); err != nil {
			t.Fatal(err)
		}
		if tokens := mustRead(t, f); len(tokens) != 0 {
			t.Errorf("Read of %s = %+v, want no tokens", empty, tokens)
		}
	}
}

func TestReadCorrupt(t *testing.T) {
	goodHash := "sha256:" + strings.Repeat("0f", 32)
	tok := func(name, hash string, scopes ...string) string {
		s, _ := json.Marshal(scopes)
		if scopes == nil {
			s = []byte("null")
		}
		return fmt.Sprintf(`{"name":%q,"scopes":%s,"hash":%q,"createdAt":"2024-01-02T03:04:05Z"}`, name, s, hash)
	}
	list := func(items ...string) string {
		return `{"tokens":[` + strings.Join(items, ",") + `]}`
	}
	tests := []struct {
		name    string
		content string
		mention string
	}{
		{"empty file", "", "not valid JSON"},
		{"not JSON", "hello", "not valid JSON"},
		{"truncated", list(tok("a", goodHash, "*"))[:40], "not valid JSON"},
		{"array", `[]`, "not valid JSON"},
		{"tokens not a list", `{"tokens":{}}`, "not valid JSON"},
		{"bad time", `{"tokens":[{"name":"a","scopes":["*"],"hash":"` + goodHash + `","createdAt":"yesterday"}]}`, "not valid JSON"},
		{"hash without prefix", list(tok("a", strings.Repeat("0f", 32), "*")), "hash"},
		{"hash other algorithm", list(tok("a", "md5:"+strings.Repeat("0f", 32), "*")), "hash"},
		{"hash short", list(tok("a", "sha256:"+strings.Repeat("0f", 31), "*")), "hash"},
		{"hash long", list(tok("a", goodHash+"00", "*")), "hash"},
		{"hash not hex", list(tok("a", "sha256:"+strings.Repeat("zz", 32), "*")), "hash"},
		{"hash upper-case hex", list(tok("a", "sha256:"+strings.Repeat("0F", 32), "*")), "hash"},
		{"hash empty", list(tok("a", "", "*")), "hash"},
		{"hash of second token", list(tok("a", goodHash, "*"), tok("b", "nope", "*")), "tokens[1]"},
		{"duplicate names", list(tok("a", goodHash, "*"), tok("a", "sha256:"+strings.Repeat("1e", 32), "*")), `"a" appears twice`},
		{"bad name", list(tok("../a", goodHash, "*")), `bad name "../a"`},
		{"empty name", list(tok("", goodHash, "*")), `bad name ""`},
		{"unicode name", list(tok("café", goodHash, "*")), "bad name"},
		{"unknown scope", list(tok("a", goodHash, "table:write")), `"table:write"`},
		{"unknown among scopes", list(tok("a", goodHash, "table:read", "foo:*")), `"foo:*"`},
		{"no scopes", list(tok("a", goodHash)), "no scopes"},
		{"empty scopes", list(tok("a", goodHash, []string{}...)), "no scopes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFile(t.TempDir())
			if err := os.WriteFile(f.Path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			tokens, err := f.Read()
			if err == nil {
				t.Fatalf("Read of %s = %+v, want an error", tt.content, tokens)
			}
			if tokens != nil {
				t.Errorf("Read returned tokens %+v with its error", tokens)
			}
			if !strings.Contains(err.Error(), f.Path) {
				t.Errorf("error %q does not mention the file %s", err, f.Path)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("error %q does not mention %s", err, tt.mention)
			}
		})
	}
}

func TestReadUnreadable(t *testing.T) {
	// A folder where the file should be: it exists but cannot be read as
	// a file.
	f := NewFile(t.TempDir())
	if err := os.Mkdir(f.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	tokens, err := f.Read()
	if err == nil {
		t.Fatalf("Read of a folder = %+v, want an error", tokens)
	}
	if !strings.Contains(err.Error(), f.Path) {
		t.Errorf("error %q does not mention the file %s", err, f.Path)
	}

	// A regular file where the config folder should be.
	parent := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(parent, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	g := NewFile(parent)
	if _, err := g.Read(); err == nil {
		t.Error("Read below a regular file succeeded")
	} else if !strings.Contains(err.Error(), g.Path) {
		t.Errorf("error %q does not mention the file %s", err, g.Path)
	}
	if _, _, err := g.Create("ci", []string{"*"}, testNow); err == nil {
		t.Error("Create below a regular file succeeded")
	}
}

// TestCreateConcurrent mimics 20 processes issuing tokens at once: each
// goroutine has its own File value for the same path. The lock keeps every
// change.
func TestCreateConcurrent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	path := filepath.Join(dir, FileName)
	const n = 20
	secrets := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			f := &File{Path: path}
			<-start
			secrets[i], _, errs[i] = f.Create(fmt.Sprintf("tok-%02d", i), []string{"*"}, testNow)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Create tok-%02d: %v", i, err)
		}
	}

	tokens := mustRead(t, &File{Path: path})
	if len(tokens) != n {
		t.Fatalf("the file holds %d tokens, want %d: %v", len(tokens), n, tokenNames(tokens))
	}
	byName := map[string]Token{}
	for _, tok := range tokens {
		byName[tok.Name] = tok
	}
	for i := range n {
		name := fmt.Sprintf("tok-%02d", i)
		tok, ok := byName[name]
		if !ok {
			t.Errorf("token %s lost", name)
			continue
		}
		if want := "sha256:" + sha256Hex(secrets[i]); tok.Hash != want {
			t.Errorf("token %s hash = %s, want %s", name, tok.Hash, want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != FileName && e.Name() != FileName+".lock" {
			t.Errorf("unexpected file %s left in the config folder", e.Name())
		}
	}
}

// TestCreateRevokeConcurrent mixes creations and revocations of distinct
// tokens from separate File values.
func TestCreateRevokeConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	const n = 10
	for i := range n {
		mustCreate(t, &File{Path: path}, fmt.Sprintf("old-%02d", i), "*")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Go(func() {
			if _, err := (&File{Path: path}).Revoke(fmt.Sprintf("old-%02d", i)); err != nil {
				errs <- err
			}
		})
		wg.Go(func() {
			if _, _, err := (&File{Path: path}).Create(fmt.Sprintf("new-%02d", i), []string{"*"}, testNow); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("new-%02d", i))
	}
	got := tokenNames(mustRead(t, &File{Path: path}))
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tokens after concurrent create and revoke (-want +got):\n%s", diff)
	}
}
