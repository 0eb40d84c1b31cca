package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// keySet is the issuer's key set, cached. Lookups read the current keys
// without locking; fetches are serialized by mu and spaced by
// RefetchInterval.
//
// jwkset's own HTTP storage (and keyfunc's, built on it) waits on its rate
// limiter when an unknown kid arrives too soon, then fetches anyway, and
// bounds the fetch with that same wait: it cannot say "not now" at once.
// So this package keeps the policy and uses jwkset only to parse keys.
type keySet struct {
	url    string
	client *http.Client
	log    *slog.Logger
	now    func() time.Time

	current atomic.Pointer[keys]
	mu      sync.Mutex   // held while fetching
	fetched atomic.Int64 // when the last fetch began (UnixNano)
	stale   atomic.Bool  // a background refresh is under way
	bg      sync.WaitGroup
}

// keys is one fetched key set.
type keys struct {
	byKID map[string]publicKey
	all   []publicKey
}

// publicKey is a verification key from the set.
type publicKey struct {
	kid, alg string // alg may be empty: any algorithm its type fits
	key      any    // *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey
}

// fetchFirst fetches the key set at start: failing, or finding no usable
// key, is an error.
func (ks *keySet) fetchFirst(ctx context.Context) error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.fetchLocked(ctx)
}

// lookup returns the key for a token's kid and alg: a key, or for a token
// without kid every key that fits alg (jwt.VerificationKeySet). An unknown
// kid makes it fetch the set again when RefetchInterval allows.
func (ks *keySet) lookup(ctx context.Context, kid, alg string) (any, error) {
	ks.refreshIfOld()
	find := func() (any, error) {
		cur := ks.current.Load()
		if kid != "" {
			k, ok := cur.byKID[kid]
			if !ok {
				return nil, nil
			}
			if !k.fits(alg) {
				return nil, &Error{Reason: ReasonBadSignature, Detail: fmt.Sprintf("key %q does not fit alg %s", kid, alg)}
			}
			return k.key, nil
		}
		var set jwt.VerificationKeySet
		for _, k := range cur.all {
			if k.fits(alg) {
				set.Keys = append(set.Keys, k.key)
			}
		}
		if len(set.Keys) == 0 {
			return nil, nil
		}
		return set, nil
	}
	if key, err := find(); key != nil || err != nil {
		return key, err
	}
	refetched := ks.refetch(ctx)
	if key, err := find(); key != nil || err != nil {
		return key, err
	}
	detail := fmt.Sprintf("no key %q in the key set", kid)
	if kid == "" {
		detail = "no kid, and no key for " + alg
	}
	if !refetched {
		detail += fmt.Sprintf(" (fetched less than %s ago)", RefetchInterval)
	}
	return nil, &Error{Reason: ReasonUnknownKey, Detail: detail}
}

// refetch fetches the key set unless the last fetch began less than
// RefetchInterval ago. It reports whether it fetched successfully. A
// caller that waited for another's fetch finds its keys in current.
func (ks *keySet) refetch(ctx context.Context) bool {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.now().Sub(time.Unix(0, ks.fetched.Load())) < RefetchInterval {
		return false
	}
	// The fetch serves every later request: a client hanging up must not
	// cancel it.
	err := ks.fetchLocked(context.WithoutCancel(ctx))
	if err != nil {
		ks.log.Warn("the auth issuer's key set could not be fetched again; the cached keys keep serving", "url", ks.url, "err", err)
	}
	return err == nil
}

// refreshIfOld starts a background fetch when the keys are older than
// KeyMaxAge, so that a key the issuer withdrew stops being accepted.
func (ks *keySet) refreshIfOld() {
	if ks.now().Sub(time.Unix(0, ks.fetched.Load())) < KeyMaxAge || !ks.stale.CompareAndSwap(false, true) {
		return
	}
	ks.bg.Go(func() {
		defer ks.stale.Store(false)
		ks.mu.Lock()
		defer ks.mu.Unlock()
		if ks.now().Sub(time.Unix(0, ks.fetched.Load())) < KeyMaxAge {
			return // another fetch came first
		}
		if err := ks.fetchLocked(context.Background()); err != nil {
			ks.log.Warn("the auth issuer's key set could not be refreshed; the cached keys keep serving", "url", ks.url, "err", err)
		}
	})
}

// fetchLocked fetches and parses the key set and, when it holds a usable
// key, makes it current. ks.mu is held.
func (ks *keySet) fetchLocked(ctx context.Context) error {
	ks.fetched.Store(ks.now().UnixNano())
	body, status, err := get(ctx, ks.client, ks.url, "application/jwk-set+json, application/json")
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("HTTP status %d", status)
	}
	next, err := ks.parse(body)
	if err != nil {
		return err
	}
	prev := ks.current.Swap(next)
	if prev != nil && !slices.Equal(prev.kids(), next.kids()) {
		ks.log.Info("the auth issuer's keys changed", "kids", next.kids())
	}
	return nil
}

// parse reads a JWK Set (RFC 7517 §5). Keys of other types, curves or uses
// are skipped; a set without one usable key is an error.
func (ks *keySet) parse(body []byte) (*keys, error) {
	var set jwkset.JWKSMarshal
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, fmt.Errorf("not a JWK Set: %w", err)
	}
	out := &keys{byKID: make(map[string]publicKey)}
	var skipped []error
	for _, m := range set.Keys {
		if m.USE != "" && m.USE != jwkset.UseSig {
			continue
		}
		jwk, err := jwkset.NewJWKFromMarshal(m, jwkset.JWKMarshalOptions{}, jwkset.JWKValidateOptions{})
		if err != nil {
			if !errors.Is(err, jwkset.ErrUnsupportedKey) {
				skipped = append(skipped, fmt.Errorf("key %q: %w", m.KID, err))
			}
			continue
		}
		k := publicKey{kid: m.KID, alg: string(m.ALG), key: jwk.Key()}
		if !k.usable() {
			continue
		}
		if _, dup := out.byKID[k.kid]; dup && k.kid != "" {
			skipped = append(skipped, fmt.Errorf("key %q: kid used twice", k.kid))
			continue
		}
		out.all = append(out.all, k)
		if k.kid != "" {
			out.byKID[k.kid] = k
		}
	}
	if len(skipped) > 0 {
		ks.log.Warn("keys of the auth issuer's key set were skipped", "url", ks.url, "err", errors.Join(skipped...))
	}
	if len(out.all) == 0 {
		return nil, fmt.Errorf("no usable key (%s)", "RS256, ES256 on P-256 or EdDSA on Ed25519")
	}
	return out, nil
}

// kids lists the key IDs of a set, sorted.
func (k *keys) kids() []string {
	ids := make([]string, 0, len(k.all))
	for _, pk := range k.all {
		ids = append(ids, pk.kid)
	}
	slices.Sort(ids)
	return ids
}

// usable reports whether the key verifies one of Algorithms.
func (k publicKey) usable() bool {
	for _, alg := range Algorithms {
		if k.fits(alg) {
			return true
		}
	}
	return false
}

// fits reports whether the key may verify a signature made with alg.
func (k publicKey) fits(alg string) bool {
	if k.alg != "" && k.alg != alg {
		return false
	}
	switch key := k.key.(type) {
	case *rsa.PublicKey:
		return alg == "RS256"
	case *ecdsa.PublicKey:
		return alg == "ES256" && key.Curve == elliptic.P256()
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}
