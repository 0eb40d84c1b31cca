package access

import (
	"errors"
	"os"
	"slices"
	"sync"
	"time"
)

// RecheckEvery is how often, at most, a Keeper looks at its file for
// changes: a token created or revoked by another process counts within
// this time.
const RecheckEvery = time.Second

// ErrUnknownToken is returned by Lookup for a secret that no token has
// (or a revoked one).
var ErrUnknownToken = errors.New("unknown or revoked token")

// Keeper holds the tokens of a file for a running server and follows the
// file: the first lookup after RecheckEvery reads it again. Looking at the
// file on demand, not through a watcher, means no goroutine and nothing to
// miss: a request never sees tokens older than RecheckEvery.
type Keeper struct {
	file *File
	now  func() time.Time

	mu      sync.Mutex
	checked time.Time
	info    os.FileInfo // nil while the file does not exist
	byHash  map[string]Token
	err     error // why the file could not be read; access is refused meanwhile
}

// NewKeeper reads f and returns its keeper. A file that cannot be read is
// an error here, at start; later, while serving, it refuses every token
// until the file is fixed (see Lookup).
func NewKeeper(f *File) (*Keeper, error) {
	k := &Keeper{file: f, now: time.Now}
	k.load()
	if k.err != nil {
		return nil, k.err
	}
	return k, nil
}

// load reads the file. Called with mu held (or before k is shared).
func (k *Keeper) load() {
	k.checked = k.now()
	info, err := os.Stat(k.file.Path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		k.info, k.byHash, k.err = nil, nil, err
		return
	}
	tokens, err := k.file.Read()
	if err != nil {
		k.info, k.byHash, k.err = info, nil, err
		return
	}
	k.info, k.err = info, nil
	k.byHash = make(map[string]Token, len(tokens))
	for _, t := range tokens {
		k.byHash[t.Hash] = t
	}
}

// fresh reads the file again once RecheckEvery has passed. Re-reading a
// small file once a second costs microseconds, and unlike comparing its
// size, time and inode it cannot miss a change. Called with mu held.
func (k *Keeper) fresh() {
	if k.now().Sub(k.checked) < RecheckEvery {
		return
	}
	k.load()
}

// Lookup returns the token whose secret this is. It returns
// ErrUnknownToken for any other secret, and the file's error while the
// file cannot be read.
func (k *Keeper) Lookup(secret string) (Token, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fresh()
	if k.err != nil {
		return Token{}, k.err
	}
	if len(secret) > maxSecret {
		return Token{}, ErrUnknownToken
	}
	t, ok := k.byHash[hash(secret)]
	if !ok {
		return Token{}, ErrUnknownToken
	}
	t.Scopes = slices.Clone(t.Scopes)
	return t, nil
}

// Has reports whether the token whose hash (Token.Hash) this is exists:
// false once it was revoked, even if a token of the same name was made
// again since. While the file cannot be read, it returns the file's error
// and no verdict. A running server asks it to end what a revoked token
// opened (its sessions).
func (k *Keeper) Has(hash string) (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fresh()
	if k.err != nil {
		return false, k.err
	}
	_, ok := k.byHash[hash]
	return ok, nil
}

// Count returns how many tokens exist, or the file's error.
func (k *Keeper) Count() (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fresh()
	return len(k.byHash), k.err
}

// Issued reports whether tokens were ever issued here: whether the token
// file exists, even if every token in it was revoked since. A server asks
// for tokens from then on; revoking the last token does not open it
// again (deleting the file does).
func (k *Keeper) Issued() (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fresh()
	return k.info != nil || k.err != nil, k.err
}
