package main

// Tests of hubsnap token create|list|revoke (docs/team.md), in process through
// the cli helpers: what each prints where, what the config folder keeps,
// and the usage errors.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubsnap/hubsnap/mcpserver/access"
)

// secretRE is the form of a token's secret: hubsnap_ and 32 random bytes
// in unpadded base64url.
var secretRE = regexp.MustCompile(`^hubsnap_[A-Za-z0-9_-]{43}$`)

// tokenFilePath is the token file in c's config folder.
func tokenFilePath(c *cli) string {
	return filepath.Join(c.configDir(), access.FileName)
}

// createToken runs hubsnap token create name --scopes scopes, checks what
// it printed, adds the secret to c.secrets (so no later run of c may show
// it) and returns the secret.
func createToken(tb testing.TB, c *cli, name, scopes string) string {
	tb.Helper()
	r := c.ok("token", "create", name, "--scopes", scopes)
	lines := r.lines()
	if len(lines) != 1 || !strings.HasSuffix(r.stdout, "\n") {
		tb.Fatalf("token create %s: stdout = %q, want exactly one line, the token", name, r.stdout)
	}
	secret := lines[0]
	if !strings.HasPrefix(secret, "hubsnap_") || !secretRE.MatchString(secret) {
		tb.Errorf("token create %s: token %q, want hubsnap_ and 43 base64url characters", name, secret)
	}
	if strings.Contains(r.stderr, secret) {
		tb.Errorf("token create %s: stderr shows the token: %q", name, r.stderr)
	}
	c.secrets = append(slices.Clone(c.secrets), secret)
	return secret
}

// tokenListEntry is one token of token list --json.
type tokenListEntry struct {
	Name      string    `json:"name"`
	Scopes    []string  `json:"scopes"`
	CreatedAt time.Time `json:"createdAt"`
}

// tokenListJSON runs token list --json and decodes it strictly: an object
// with only "tokens", each with only name, scopes and createdAt.
func tokenListJSON(tb testing.TB, c *cli) []tokenListEntry {
	tb.Helper()
	r := c.ok("token", "list", "--json")
	if r.stderr != "" {
		tb.Errorf("token list --json: stderr = %q, want nothing", r.stderr)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		tb.Fatalf("token list --json: stdout is not a JSON object: %v\n%s", err, r.stdout)
	}
	if len(raw) != 1 || raw["tokens"] == nil {
		tb.Errorf("token list --json: keys of %s, want only \"tokens\"", r.stdout)
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw["tokens"], &items); err != nil || items == nil {
		tb.Fatalf("token list --json: tokens = %s, want an array (%v)", raw["tokens"], err)
	}
	for i, item := range items {
		var keys []string
		for k := range item {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if want := []string{"createdAt", "name", "scopes"}; !slices.Equal(keys, want) {
			tb.Errorf("token list --json: tokens[%d] has keys %q, want %q", i, keys, want)
		}
	}
	for _, s := range []string{"hash", "sha256", "hubsnap_"} {
		if strings.Contains(r.stdout, s) {
			tb.Errorf("token list --json shows %q:\n%s", s, r.stdout)
		}
	}
	var out struct {
		Tokens []tokenListEntry `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		tb.Fatalf("token list --json: %v\n%s", err, r.stdout)
	}
	return out.Tokens
}

// tokenTable runs token list and returns its rows (header first), each
// split into fields.
func tokenTable(tb testing.TB, c *cli) [][]string {
	tb.Helper()
	r := c.ok("token", "list")
	if r.stderr != "" {
		tb.Errorf("token list: stderr = %q, want nothing", r.stderr)
	}
	var rows [][]string
	for _, l := range r.lines() {
		rows = append(rows, strings.Fields(l))
	}
	if len(rows) == 0 || !slices.Equal(rows[0], []string{"NAME", "SCOPES", "CREATED"}) {
		tb.Fatalf("token list: stdout = %q, want a NAME SCOPES CREATED header", r.stdout)
	}
	return rows
}

func TestTokenCreateListRevoke(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	before := time.Now().Add(-time.Second)

	r := c.ok("token", "create", "alice", "--scopes", "table:read,logic:read")
	lines := r.lines()
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "hubsnap_") {
		t.Fatalf("token create: stdout = %q, want one line, the token (hubsnap_...)", r.stdout)
	}
	secret := lines[0]
	if !secretRE.MatchString(secret) {
		t.Errorf("token create: token %q, want hubsnap_ and 43 base64url characters", secret)
	}
	if r.stderr == "" || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("token create: stderr = %q, want a one-line note", r.stderr)
	}
	mentions(t, "token create stderr", r.stderr, "alice", "table:read,logic:read", "once")
	if strings.Contains(r.stderr, secret) {
		t.Errorf("token create: stderr shows the token: %q", r.stderr)
	}
	c.secrets = append(c.secrets, secret)

	// The file: owner-only, the hash, never the secret.
	path := tokenFilePath(c)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("token create did not write %s: %v", access.FileName, err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("%s has mode %v, want 0600", access.FileName, perm)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	random := strings.TrimPrefix(secret, "hubsnap_")
	if bytes.Contains(data, []byte(secret)) || bytes.Contains(data, []byte(random)) {
		t.Errorf("%s holds the token:\n%s", access.FileName, data)
	}
	if !bytes.Contains(data, []byte(`"sha256:`)) || !bytes.Contains(data, []byte(`"alice"`)) {
		t.Errorf("%s = %s, want alice with a sha256 hash", access.FileName, data)
	}
	if found := filesContaining(t, c.configDir(), random); len(found) != 0 {
		t.Errorf("the config folder holds the token in %q", found)
	}

	// token list: a table, never the token (runIn checks c.secrets).
	rows := tokenTable(t, c)
	if len(rows) != 2 || len(rows[1]) != 3 || rows[1][0] != "alice" || rows[1][1] != "table:read,logic:read" {
		t.Fatalf("token list rows = %q, want alice with table:read,logic:read", rows)
	}
	created, err := time.Parse(time.RFC3339, rows[1][2])
	if err != nil || created.Before(before.Truncate(time.Second)) || created.After(time.Now().Add(time.Second)) {
		t.Errorf("token list: CREATED = %q (%v), want an RFC 3339 time of now", rows[1][2], err)
	}

	// token list --json.
	list := tokenListJSON(t, c)
	if len(list) != 1 || list[0].Name != "alice" || !slices.Equal(list[0].Scopes, []string{"table:read", "logic:read"}) ||
		!list[0].CreatedAt.Equal(created) {
		t.Errorf("token list --json = %+v, want alice [table:read logic:read] created %v", list, created)
	}

	// A second token, then revoke alice: bob stays.
	bob := createToken(t, c, "bob", "*")
	if bob == secret {
		t.Errorf("two tokens have the same secret %q", bob)
	}
	r = c.ok("token", "revoke", "alice")
	if r.stdout != "" {
		t.Errorf("token revoke: stdout = %q, want nothing", r.stdout)
	}
	mentions(t, "token revoke stderr", r.stderr, "alice", "revoked")
	if rows := tokenTable(t, c); len(rows) != 2 || rows[1][0] != "bob" || rows[1][1] != "*" {
		t.Errorf("token list after revoking alice = %q, want bob only", rows)
	}
	if data, _ := os.ReadFile(path); bytes.Contains(data, []byte(`"alice"`)) {
		t.Errorf("%s still names alice after revoke:\n%s", access.FileName, data)
	}

	// Revoking again is an error that names the token.
	r = c.fails(exitError, "token", "revoke", "alice")
	mentions(t, "token revoke alice again", r.msg(), `"alice"`)

	// With no tokens left: nothing on stdout, a hint on stderr, exit 0.
	c.ok("token", "revoke", "bob")
	r = c.ok("token", "list")
	if r.stdout != "" {
		t.Errorf("token list without tokens: stdout = %q, want nothing", r.stdout)
	}
	mentions(t, "token list without tokens: stderr", r.stderr, "token create")
	if got := tokenListJSON(t, c); len(got) != 0 {
		t.Errorf("token list --json without tokens = %+v, want none", got)
	}
	r = c.ok("token", "list", "--json")
	var empty map[string]any
	if json.Unmarshal([]byte(r.stdout), &empty) != nil || fmt.Sprint(empty["tokens"]) != "[]" {
		t.Errorf("token list --json without tokens = %q, want {\"tokens\": []}", r.stdout)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("%s after revoking every token: %v, %v; want it kept, mode 0600", access.FileName, info, err)
	}
}

// A token named again can be created again after a revoke, with a new
// secret.
func TestTokenRecreateAfterRevoke(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	first := createToken(t, c, "ci", "release:read")
	c.ok("token", "revoke", "ci")
	second := createToken(t, c, "ci", "table:*")
	if first == second {
		t.Errorf("the re-created token has the revoked token's secret")
	}
	if list := tokenListJSON(t, c); len(list) != 1 || list[0].Name != "ci" || !slices.Equal(list[0].Scopes, []string{"table:*"}) {
		t.Errorf("token list --json = %+v, want ci [table:*]", list)
	}
}

func TestTokenCreateRepeatedScopes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"repeated flag", []string{"--scopes", "table:read", "--scopes", "*:read"}, []string{"table:read", "*:read"}},
		{"equals form", []string{"--scopes=logic:read", "--scopes=release:read"}, []string{"logic:read", "release:read"}},
		{"duplicates and spaces dropped", []string{"--scopes", "table:read, table:read", "--scopes", "table:read,logic:read"},
			[]string{"table:read", "logic:read"}},
		{"wildcards", []string{"--scopes", "table:*,*"}, []string{"table:*", "*"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			r := c.ok(append([]string{"token", "create", "alice"}, tc.args...)...)
			if lines := r.lines(); len(lines) != 1 || !secretRE.MatchString(lines[0]) {
				t.Fatalf("stdout = %q, want one line, the token", r.stdout)
			}
			c.secrets = append(c.secrets, r.lines()[0])
			list := tokenListJSON(t, c)
			if len(list) != 1 || !slices.Equal(list[0].Scopes, tc.want) {
				t.Errorf("token list --json = %+v, want alice with scopes %q", list, tc.want)
			}
			if rows := tokenTable(t, c); len(rows) != 2 || rows[1][1] != strings.Join(tc.want, ",") {
				t.Errorf("token list rows = %q, want scopes %s", rows, strings.Join(tc.want, ","))
			}
		})
	}
}

func TestTokenUsageErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 65)
	for _, tc := range []struct {
		args  []string
		words []string // the message must mention each
	}{
		{[]string{"token", "create", "alice"}, []string{"--scopes"}},
		{[]string{"token", "create", "alice", "--scopes", "table:write"}, []string{"table:write"}},
		{[]string{"token", "create", "alice", "--scopes", "table:read,table:write"}, []string{"table:write"}},
		{[]string{"token", "create", "alice", "--scopes", "table"}, []string{"table"}},
		{[]string{"token", "create", "alice", "--scopes", ""}, []string{"scopes"}},
		{[]string{"token", "create", "alice", "--scopes", " , "}, []string{"scopes"}},
		{[]string{"token", "create", "../x", "--scopes", "table:read"}, []string{"../x"}},
		{[]string{"token", "create", "a/b", "--scopes", "table:read"}, []string{"a/b"}},
		{[]string{"token", "create", ".hidden", "--scopes", "table:read"}, []string{".hidden"}},
		{[]string{"token", "create", "", "--scopes", "table:read"}, nil},
		{[]string{"token", "create", "al ice", "--scopes", "table:read"}, nil},
		{[]string{"token", "create", long, "--scopes", "table:read"}, nil},
		{[]string{"token", "create", "--scopes", "table:read"}, nil},
		{[]string{"token", "create", "alice", "bob", "--scopes", "table:read"}, nil},
		{[]string{"token", "create", "alice", "--scopes", "table:read", "--bogus"}, nil},
		{[]string{"token", "list", "extra"}, nil},
		{[]string{"token", "list", "--json=maybe"}, nil},
		{[]string{"token", "revoke"}, nil},
		{[]string{"token", "revoke", "alice", "bob"}, nil},
		{[]string{"token", "bogus"}, []string{"bogus"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			r := c.fails(exitUsage, tc.args...)
			mentions(t, "message", r.msg(), tc.words...)
			if strings.Contains(r.stderr, "hubsnap_") {
				t.Errorf("stderr shows a token: %q", r.stderr)
			}
			if exists(tokenFilePath(c)) {
				t.Errorf("a usage error wrote %s", access.FileName)
			}
		})
	}
}

// A name that has a token is an error (exit 1) that says to revoke it, and
// leaves the file as it was.
func TestTokenCreateDuplicate(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	createToken(t, c, "alice", "table:read")
	before, err := os.ReadFile(tokenFilePath(c))
	if err != nil {
		t.Fatal(err)
	}
	r := c.fails(exitError, "token", "create", "alice", "--scopes", "*")
	mentions(t, "duplicate token create", r.msg(), "alice", "revoke")
	if strings.Contains(r.stderr, "hubsnap_") {
		t.Errorf("duplicate token create: stderr shows a token: %q", r.stderr)
	}
	after, err := os.ReadFile(tokenFilePath(c))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("duplicate token create changed %s:\nbefore %s\nafter  %s", access.FileName, before, after)
	}
	if list := tokenListJSON(t, c); len(list) != 1 || !slices.Equal(list[0].Scopes, []string{"table:read"}) {
		t.Errorf("token list --json = %+v, want alice with table:read only", list)
	}
}

// Revoking a token that never existed is an error naming it, on a fresh
// config folder too, and creates no token file.
func TestTokenRevokeUnknown(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.fails(exitError, "token", "revoke", "alice")
	mentions(t, "token revoke on a fresh config folder", r.msg(), `"alice"`, "token list")
	if exists(tokenFilePath(c)) {
		t.Errorf("token revoke of an unknown token created %s", access.FileName)
	}
	createToken(t, c, "bob", "*")
	r = c.fails(exitError, "token", "revoke", "alice")
	mentions(t, "token revoke of an unknown token", r.msg(), `"alice"`)
	if rows := tokenTable(t, c); len(rows) != 2 || rows[1][0] != "bob" {
		t.Errorf("token list = %q, want bob", rows)
	}
}

// token list only reads: on a fresh config folder it creates nothing.
func TestTokenListCreatesNothing(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.ok("token", "list")
	if r.stdout != "" {
		t.Errorf("token list: stdout = %q, want nothing", r.stdout)
	}
	mentions(t, "token list: stderr", r.stderr, "hubsnap token create")
	tokenListJSON(t, c)
	if exists(c.configDir()) {
		t.Errorf("token list created the config folder %s", c.configDir())
	}
}

func TestTokenHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"token"}, {"token", "--help"}, {"help", "token"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			r := c.ok(args...)
			mentions(t, "stdout", r.stdout, "Usage:", "create", "list", "revoke", "table:read", "logic:read", "release:read")
			if r.stderr != "" {
				t.Errorf("stderr = %q, want nothing", r.stderr)
			}
		})
	}
	c := newCLI(t)
	r := c.ok("token", "create", "--help")
	mentions(t, "token create --help", r.stdout, "Usage:", "--scopes")
	r = c.fails(exitUsage, "token", "bogus")
	mentions(t, "token bogus", r.msg(), "bogus", "token")
}

// A token file that is not valid makes the token commands fail (exit 1)
// naming it, rather than guess; create and revoke leave it as it was.
func TestTokenCorruptFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if err := os.MkdirAll(c.configDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	bad := []byte(`{"tokens": [{"name": "alice", "scopes": ["table:read"], "hash": "md5:nope"}]}`)
	if err := os.WriteFile(tokenFilePath(c), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"token", "list"},
		{"token", "list", "--json"},
		{"token", "create", "bob", "--scopes", "*"},
		{"token", "revoke", "alice"},
	} {
		r := c.fails(exitError, args...)
		mentions(t, strings.Join(args, " "), r.msg(), access.FileName)
	}
	if data, _ := os.ReadFile(tokenFilePath(c)); !bytes.Equal(data, bad) {
		t.Errorf("%s changed:\n%s", access.FileName, data)
	}
}

// Tokens created at once by several commands are all kept (the file is
// updated under a lock).
func TestTokenCreateConcurrent(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	const n = 8
	secrets := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := c.run("token", "create", fmt.Sprintf("tok%d", i), "--scopes", "table:read")
			if r.code != exitOK {
				t.Errorf("token create tok%d: exit %d, stderr %q", i, r.code, r.stderr)
				return
			}
			secrets[i] = strings.TrimSpace(r.stdout)
		})
	}
	wg.Wait()
	c.secrets = append(c.secrets, secrets...)
	list := tokenListJSON(t, c)
	var names []string
	for _, e := range list {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("tok%d", i))
	}
	if !slices.Equal(names, want) {
		t.Errorf("after %d concurrent creates, token list names %q, want %q", n, names, want)
	}
	seen := map[string]bool{}
	for _, s := range secrets {
		if seen[s] {
			t.Errorf("two tokens have the secret %q", s)
		}
		seen[s] = true
	}
}
