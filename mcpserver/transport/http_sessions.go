package transport

import (
	"cmp"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver/access"
)

// The sessions of the stateful handler (protocol 2025-11-25 and older).
// hubsnap keeps them itself, not through go-sdk's SessionTimeout, which
// counts only POSTs as activity: a client that holds its GET stream open
// and calls nothing for a while (an editor over lunch) lost its session,
// and most clients do not open a new one on their own.
//
//   - A session is in use while a request of it is in flight, its GET
//     stream included. It is closed once it has been idle (not in use)
//     for HTTPOptions.SessionTimeout (DefaultSessionTimeout: a day).
//   - At most HTTPOptions.MaxSessions are open, exactly: a new session
//     reserves its place before go-sdk makes it. When every place is
//     taken, one session is evicted, by fair share: with n owners (a
//     token's name, an OAuth subject, or a client address when no token
//     is needed) holding or asking for places, an owner's share is
//     MaxSessions/n (at least one). An owner that asks at or over its
//     share evicts its own least recently used session; one under it
//     evicts the least recently used session of the owners over theirs.
//     Idle sessions go before sessions in use. Only when every place of
//     those owners is being opened at that very moment is the new
//     session refused (503, Retry-After).
//   - A session whose issued token is revoked is closed within about
//     revokeCheckEvery (the keeper sees the change at its next look),
//     which ends its GET stream.
//   - A request for a session that is gone gets 404 (errSessionGone): the
//     transport spec's sign for a client to initialize again.

// revokeCheckEvery is how often the tokens of open sessions are checked
// while any is open.
const revokeCheckEvery = 500 * time.Millisecond

// sessionTable tracks the stateful sessions of one HTTPHandler.
type sessionTable struct {
	max      int
	timeout  time.Duration
	tokens   *access.Keeper // nil without issued tokens
	log      *slog.Logger
	onClosed func(*mcp.ServerSession) // after a session closed, for any reason
	now      func() time.Time

	mu       sync.Mutex
	byID     map[string]*sessionEntry
	owned    map[string]int // owner -> sessions and reservations
	total    int            // sessions and reservations
	watching bool           // watchTokens runs
}

// sessionEntry is one open session.
type sessionEntry struct {
	id, owner string
	token     string // the hash of the issued token that opened it, if any
	ss        *mcp.ServerSession
	last      time.Time // when it was last used
	busy      int       // requests in flight (GET streams included)
	timer     *time.Timer
	gone      bool // removed from the table
}

// reservation is a place taken for a session that an initialize is
// opening; bind turns it into a session, release gives it back.
type reservation struct {
	owner, token string
	entry        *sessionEntry // once bound
	done         bool          // bound or released
}

// errTooManySessions is reserve's error when no place can be had.
var errTooManySessions = errors.New("too many sessions are being opened at once; retry in a moment")

func newSessionTable(opts HTTPOptions, onClosed func(*mcp.ServerSession)) *sessionTable {
	return &sessionTable{max: opts.MaxSessions, timeout: opts.SessionTimeout, tokens: opts.Tokens, log: opts.Log,
		onClosed: onClosed, now: time.Now,
		byID: map[string]*sessionEntry{}, owned: map[string]int{}}
}

// reserve takes a place for a new session of owner, evicting one (closed
// before reserve returns, so that go-sdk never holds more than max) when
// every place is taken.
func (t *sessionTable) reserve(owner, token string) (*reservation, error) {
	t.mu.Lock()
	var victim *sessionEntry
	if t.total >= t.max {
		if victim = t.victimLocked(owner); victim == nil {
			t.mu.Unlock()
			return nil, errTooManySessions
		}
		t.removeLocked(victim)
	}
	t.total++
	t.owned[owner]++
	t.mu.Unlock()
	if victim != nil {
		t.log.Info("session evicted", "session", shortID(victim.id), "owner", victim.owner, "for", owner)
		victim.ss.Close()
	}
	return &reservation{owner: owner, token: token}, nil
}

// victimLocked picks the session to evict for a new one of owner (see the
// fair share above), or nil.
func (t *sessionTable) victimLocked(owner string) *sessionEntry {
	owners := len(t.owned)
	if t.owned[owner] == 0 {
		owners++
	}
	share := max(1, t.max/owners)
	mine := t.owned[owner] >= share
	var victim *sessionEntry
	for _, e := range t.byID {
		if mine && e.owner != owner || !mine && t.owned[e.owner] <= share {
			continue
		}
		if victim == nil || lessRecentlyUsed(e, victim) {
			victim = e
		}
	}
	return victim
}

// lessRecentlyUsed orders the candidates for eviction: idle before in use,
// then by the time of last use.
func lessRecentlyUsed(a, b *sessionEntry) bool {
	if (a.busy > 0) != (b.busy > 0) {
		return a.busy == 0
	}
	return a.last.Before(b.last) || a.last.Equal(b.last) && a.id < b.id
}

// bind makes res the session ss (which initialize just opened), in use
// until release.
func (t *sessionTable) bind(res *reservation, ss *mcp.ServerSession) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if res.done || ss.ID() == "" {
		return
	}
	res.done = true
	e := &sessionEntry{id: ss.ID(), owner: res.owner, token: res.token, ss: ss, last: t.now(), busy: 1}
	res.entry = e
	t.byID[e.id] = e
	e.timer = time.AfterFunc(t.timeout, func() { t.expire(e) })
	go func() {
		ss.Wait()
		t.closed(e)
	}()
	if e.token != "" && t.tokens != nil && !t.watching {
		t.watching = true
		go t.watchTokens()
	}
}

// release ends the initialize that took res: its session is used no more
// by it, or, when none was made, the place is given back.
func (t *sessionTable) release(res *reservation) {
	t.mu.Lock()
	if res.done {
		t.mu.Unlock()
		if res.entry != nil {
			t.done(res.entry)
		}
		return
	}
	res.done = true
	t.freeLocked(res.owner)
	t.mu.Unlock()
}

// use marks the session id in use by a request; false when it is not open.
func (t *sessionTable) use(id string) (*sessionEntry, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := t.byID[id]
	if e == nil {
		return nil, false
	}
	e.busy++
	e.last = t.now()
	return e, true
}

// done ends a use of e; once it is idle, its timeout starts.
func (t *sessionTable) done(e *sessionEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e.busy--
	e.last = t.now()
	if e.busy == 0 && !e.gone {
		e.timer.Reset(t.timeout)
	}
}

// expire closes e if it has been idle for the timeout.
func (t *sessionTable) expire(e *sessionEntry) {
	t.mu.Lock()
	if e.gone || e.busy > 0 {
		t.mu.Unlock()
		return // done restarts the timer
	}
	if idle := t.now().Sub(e.last); idle < t.timeout {
		e.timer.Reset(t.timeout - idle)
		t.mu.Unlock()
		return
	}
	t.removeLocked(e)
	t.mu.Unlock()
	t.log.Info("session closed: idle", "session", shortID(e.id), "owner", e.owner, "timeout", t.timeout)
	e.ss.Close()
}

// closed runs once e's session has closed, however it was (DELETE,
// expiry, eviction, revocation, shutdown).
func (t *sessionTable) closed(e *sessionEntry) {
	t.mu.Lock()
	if !e.gone {
		t.removeLocked(e)
	}
	t.mu.Unlock()
	t.onClosed(e.ss)
}

// removeLocked takes e out of the table.
func (t *sessionTable) removeLocked(e *sessionEntry) {
	e.gone = true
	e.timer.Stop()
	delete(t.byID, e.id)
	t.freeLocked(e.owner)
}

func (t *sessionTable) freeLocked(owner string) {
	t.total--
	if t.owned[owner]--; t.owned[owner] <= 0 {
		delete(t.owned, owner)
	}
}

// watchTokens closes the sessions of revoked tokens, while any session
// opened by an issued token is open.
func (t *sessionTable) watchTokens() {
	tick := time.NewTicker(revokeCheckEvery)
	defer tick.Stop()
	for range tick.C {
		t.mu.Lock()
		byToken := map[string][]*sessionEntry{}
		for _, e := range t.byID {
			if e.token != "" {
				byToken[e.token] = append(byToken[e.token], e)
			}
		}
		if len(byToken) == 0 {
			t.watching = false
			t.mu.Unlock()
			return
		}
		t.mu.Unlock()
		for hash, entries := range byToken {
			if ok, err := t.tokens.Has(hash); ok || err != nil {
				continue // a file that cannot be read refuses requests, and closes nothing
			}
			for _, e := range entries {
				t.mu.Lock()
				gone := e.gone
				if !gone {
					t.removeLocked(e)
				}
				t.mu.Unlock()
				if !gone {
					t.log.Info("session closed: its token was revoked", "session", shortID(e.id), "owner", e.owner)
					e.ss.Close()
				}
			}
		}
	}
}

// count returns the sessions and reservations held, in all and by owner.
func (t *sessionTable) count(owner string) (total, owned int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total, t.owned[owner]
}

// shortID is a session id as logs show it: its first six characters.
func shortID(id string) string {
	return id[:min(len(id), 6)]
}

// ownerOf names who a request comes from, for the fair share: its token's
// name, its OAuth subject, or else its client's address.
func ownerOf(token, sub, remoteAddr string) string {
	return cmp.Or(prefixed("token:", token), prefixed("sub:", sub), "addr:"+hostOf(remoteAddr))
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
