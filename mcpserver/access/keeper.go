package access

import (
	"errors"
	"os"
	"slices"
	"sync"
	"time"
)

// RecheckEvery is how often, at most, a Keeper reads its file again even
// though its stat says it did not change: the backstop for a change that
// keeps the file's inode, size, modification time and mode (an in-place
// rewrite on a file system with coarse times).
const RecheckEvery = time.Second

// ErrUnknownToken is returned by Lookup for a secret that no token has
// (or a revoked one).
var ErrUnknownToken = errors.New("unknown or revoked token")

// Keeper holds the tokens of a file for a running server and follows the
// file, so that `hubsnap token create` and `token revoke`, run in another
// process, count for the very next request after they return:
//
//   - Every call looks at the file's stat (a few hundred nanoseconds, no
//     read) and reads the file again when its inode, size, modification
//     time or mode changed. File replaces it by a rename, so each change
//     is a new inode, and a change is seen by any call that began after
//     the rename.
//   - Calls share a stat: one that began after a call arrived answers for
//     it, so a burst of requests makes few stats; a read happens only when
//     the file changed, which no client can cause.
//   - Whatever the stat says, the file is read again once RecheckEvery has
//     passed, so a change the stat cannot see counts within a second.
//
// Looking at the file on demand, not through a watcher, means no goroutine
// and nothing to miss.
type Keeper struct {
	file *File
	now  func() time.Time

	mu      sync.Mutex
	checked time.Time   // when the file was last read
	statted time.Time   // when the last look at its stat began
	info    os.FileInfo // nil while the file does not exist
	byHash  map[string]Token
	err     error // why the file could not be read; access is refused meanwhile
}

// NewKeeper reads f and returns its keeper. A file that cannot be read is
// an error here, at start; later, while serving, it refuses every token
// until the file is fixed (see Lookup).
func NewKeeper(f *File) (*Keeper, error) {
	k := &Keeper{file: f, now: time.Now}
	k.load(k.now(), nil, nil)
	if k.err != nil {
		return nil, k.err
	}
	return k, nil
}

// load reads the file, whose stat (info, err) was taken at began, or is
// taken now when both are nil. Called with mu held (or before k is
// shared).
func (k *Keeper) load(began time.Time, info os.FileInfo, err error) {
	if info == nil && err == nil {
		info, err = os.Stat(k.file.Path)
	}
	k.checked, k.statted = began, began
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

// fresh brings the keeper up to date with the file as it was when the
// call began (arrived): see Keeper. Called with mu held.
func (k *Keeper) fresh(arrived time.Time) {
	began := k.now()
	if began.Sub(k.checked) >= RecheckEvery {
		k.load(began, nil, nil)
		return
	}
	if k.statted.After(arrived) {
		return // a look that began after this call arrived answers for it
	}
	info, err := os.Stat(k.file.Path)
	if errors.Is(err, os.ErrNotExist) {
		info, err = nil, nil
	}
	statFailed := k.err != nil && k.info == nil // the last look could not stat the file
	switch {
	case err != nil && statFailed:
		// Still cannot look at it: the next read, at RecheckEvery, says
		// whether the reason changed.
	case err != nil || statFailed || changed(k.info, info):
		k.load(began, info, err)
		return
	}
	k.statted = began
}

// changed reports whether the file's stat differs: it appeared, went, or
// is another inode, size, modification time or mode. A nil stat is a
// missing file.
func changed(was, now os.FileInfo) bool {
	if was == nil || now == nil {
		return (was == nil) != (now == nil)
	}
	return !os.SameFile(was, now) || was.Size() != now.Size() || !was.ModTime().Equal(now.ModTime()) ||
		was.Mode() != now.Mode()
}

// Lookup returns the token whose secret this is. It returns
// ErrUnknownToken for any other secret, and the file's error while the
// file cannot be read.
func (k *Keeper) Lookup(secret string) (Token, error) { return k.LookupAsOf(secret, k.now()) }

// LookupAsOf is Lookup for a request that arrived at arrived: it sees
// every change made to the file before then. The calls a request makes
// with its arrival time share one look at the file.
func (k *Keeper) LookupAsOf(secret string, arrived time.Time) (Token, error) {
	h := ""
	if len(secret) <= maxSecret {
		h = hash(secret)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fresh(arrived)
	if k.err != nil {
		return Token{}, k.err
	}
	t, ok := k.byHash[h]
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
	arrived := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fresh(arrived)
	if k.err != nil {
		return false, k.err
	}
	_, ok := k.byHash[hash]
	return ok, nil
}

// Count returns how many tokens exist, or the file's error.
func (k *Keeper) Count() (int, error) {
	arrived := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fresh(arrived)
	return len(k.byHash), k.err
}

// Issued reports whether tokens were ever issued here: whether the token
// file exists, even if every token in it was revoked since. A server asks
// for tokens from then on; revoking the last token does not open it
// again (deleting the file does).
func (k *Keeper) Issued() (bool, error) { return k.IssuedAsOf(k.now()) }

// IssuedAsOf is Issued for a request that arrived at arrived (see
// LookupAsOf).
func (k *Keeper) IssuedAsOf(arrived time.Time) (bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.fresh(arrived)
	return k.info != nil || k.err != nil, k.err
}
