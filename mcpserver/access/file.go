package access

import (
	"crypto/rand"
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
	"time"

	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// FileName is the file in the config folder that holds the tokens of
// `hubsnap serve --http`. (The Hub tokens of contexts live elsewhere, in
// tokens/NAME.)
const FileName = "serve-tokens.json"

// secretPrefix starts every token, so that secret scanners and people can
// tell a hubsnap token when they see one.
const secretPrefix = "hubsnap_"

// maxSecret is the longest bearer token looked up; anything longer is
// refused before hashing.
const maxSecret = 256

// Token is an issued token as the config folder keeps it: never the
// secret, only its hash.
type Token struct {
	Name      string    `json:"name"`
	Scopes    []string  `json:"scopes"`
	Hash      string    `json:"hash"` // "sha256:" and 64 hex digits
	CreatedAt time.Time `json:"createdAt"`
}

// ErrNoToken is returned by Revoke for a name that has no token.
var ErrNoToken = errors.New("no such token")

var tokenName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// CheckName returns an error unless name can name a token: a letter or
// digit, then up to 63 letters, digits, '.', '_' or '-'.
func CheckName(name string) error {
	if !tokenName.MatchString(name) {
		return fmt.Errorf("token name %q: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", name)
	}
	return nil
}

// File is the token file of one config folder.
type File struct {
	// Path is the file's path: FileName in the config folder.
	Path string
}

// NewFile returns the token file of the config folder dir.
func NewFile(dir string) *File {
	return &File{Path: filepath.Join(dir, FileName)}
}

// fileData is the file's JSON.
type fileData struct {
	Tokens []Token `json:"tokens"`
}

// Read returns the tokens in the file, oldest first. A missing file holds
// no tokens. A file that cannot be read or holds something that is not a
// valid token is an error: a server never guesses about access.
func (f *File) Read() ([]Token, error) {
	data, err := os.ReadFile(f.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the token file: %w", err)
	}
	var d fileData
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("the token file %s is not valid JSON: %v", f.Path, err)
	}
	seen := map[string]bool{}
	for i, t := range d.Tokens {
		bad := func(why string) error {
			return fmt.Errorf("the token file %s: tokens[%d]: %s", f.Path, i, why)
		}
		if CheckName(t.Name) != nil {
			return nil, bad(fmt.Sprintf("bad name %q", t.Name))
		}
		if seen[t.Name] {
			return nil, bad(fmt.Sprintf("name %q appears twice", t.Name))
		}
		seen[t.Name] = true
		if !validHash(t.Hash) {
			return nil, bad("hash is not sha256: and 64 hex digits")
		}
		if _, err := ParseScopes(t.Scopes); err != nil {
			return nil, bad(err.Error())
		}
	}
	return d.Tokens, nil
}

func validHash(h string) bool {
	hexa, ok := strings.CutPrefix(h, "sha256:")
	if !ok || len(hexa) != 64 {
		return false
	}
	_, err := hex.DecodeString(hexa)
	return err == nil && hexa == strings.ToLower(hexa) // as hash writes it
}

// Create issues a token named name with the given scopes (already checked
// by ParseScopes) and returns its secret, which exists nowhere else: the
// file keeps only its hash. A name that already has a token is an error;
// revoke it first.
func (f *File) Create(name string, scopes []string, now time.Time) (secret string, t Token, err error) {
	if err := CheckName(name); err != nil {
		return "", Token{}, err
	}
	if scopes, err = ParseScopes(scopes); err != nil {
		return "", Token{}, err
	}
	err = f.update(func(tokens []Token) ([]Token, error) {
		if slices.ContainsFunc(tokens, func(t Token) bool { return t.Name == name }) {
			return nil, fmt.Errorf("a token named %q exists; revoke it first (hubsnap token revoke %s)", name, name)
		}
		var raw [32]byte
		rand.Read(raw[:]) // never fails (crypto/rand)
		secret = secretPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
		t = Token{Name: name, Scopes: scopes, Hash: hash(secret), CreatedAt: now.UTC().Truncate(time.Second)}
		return append(tokens, t), nil
	})
	if err != nil {
		return "", Token{}, err
	}
	return secret, t, nil
}

// Revoke removes the token named name and returns it; ErrNoToken if there
// is none.
func (f *File) Revoke(name string) (Token, error) {
	var gone Token
	err := f.update(func(tokens []Token) ([]Token, error) {
		i := slices.IndexFunc(tokens, func(t Token) bool { return t.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("%w named %q", ErrNoToken, name)
		}
		gone = tokens[i]
		return slices.Delete(tokens, i, i+1), nil
	})
	return gone, err
}

// update changes the file under a lock, so two commands issuing or
// revoking tokens at once cannot lose each other's change, and replaces
// it atomically, so a server never reads half of it.
func (f *File) update(change func([]Token) ([]Token, error)) error {
	dir := filepath.Dir(f.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create the config folder: %w", err)
	}
	unlock, err := lockFile(f.Path + ".lock")
	if err != nil {
		return fmt.Errorf("lock the token file: %w", err)
	}
	defer unlock()
	tokens, err := f.Read()
	if err != nil {
		return err
	}
	if tokens, err = change(tokens); err != nil {
		return err
	}
	if tokens == nil {
		tokens = []Token{}
	}
	data, err := json.MarshalIndent(fileData{Tokens: tokens}, "", "  ")
	if err != nil {
		return err
	}
	// Replaced atomically, the folder synced too, so that a crash can
	// neither leave half a file nor bring back a revoked token.
	if err := atomicfile.WriteFile(f.Path, append(data, '\n')); err != nil {
		return fmt.Errorf("write the token file: %w", err)
	}
	return nil
}

// hash is how the file keeps a secret. The secrets are 256 random bits, so
// a fast hash is enough: there is nothing to guess.
func hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return "sha256:" + hex.EncodeToString(sum[:])
}
