package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestUnknownKidRefetchesAtMostEvery10s(t *testing.T) {
	is := newTestIssuer(t, "")
	logs := new(syncBuffer)
	v := is.verifier(logs)
	clk := useClock(v)
	verify := func(k testKey) error {
		_, err := v.Verify(context.Background(), is.sign(k, is.claims(clk.now()), nil))
		return err
	}
	if got, want := is.jwksHits.Load(), int32(1); got != want {
		t.Fatalf("key set fetched %d times at start, want %d", got, want)
	}

	// A token signed with a key rotated in just after start: too soon to
	// fetch again.
	rotated := is.newKey("ES256", "k2")
	is.publish(rotated)
	if got := ReasonOf(verify(rotated)); got != ReasonUnknownKey {
		t.Fatalf("reason = %q, want %q (no fetch within %s of the first)", got, ReasonUnknownKey, RefetchInterval)
	}
	if got, want := is.jwksHits.Load(), int32(1); got != want {
		t.Fatalf("key set fetched %d times, want %d", got, want)
	}

	// 10 s later, the unknown kid makes it fetch, and the token verifies.
	clk.add(RefetchInterval)
	if err := verify(rotated); err != nil {
		t.Fatalf("after the re-fetch: %v", err)
	}
	if got, want := is.jwksHits.Load(), int32(2); got != want {
		t.Fatalf("key set fetched %d times, want %d", got, want)
	}
	if !logs.contains("keys changed", "k2") {
		t.Errorf("the key change was not logged:\n%s", logs)
	}

	// A second unknown kid within 10 s (many requests at once): no fetch.
	clk.add(RefetchInterval - time.Second)
	stranger := is.newKey("EdDSA", "k3")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := ReasonOf(verify(stranger)); got != ReasonUnknownKey {
				t.Errorf("reason = %q, want %q", got, ReasonUnknownKey)
			}
		})
	}
	wg.Wait()
	if got, want := is.jwksHits.Load(), int32(2); got != want {
		t.Fatalf("key set fetched %d times, want %d", got, want)
	}
	// Known keys are still served meanwhile.
	if err := verify(rotated); err != nil {
		t.Fatal(err)
	}

	// Once 10 s have passed, one more fetch, however many requests.
	clk.add(time.Second)
	is.publish(stranger)
	for range 8 {
		wg.Go(func() {
			if err := verify(stranger); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, want := is.jwksHits.Load(), int32(3); got != want {
		t.Fatalf("key set fetched %d times, want %d", got, want)
	}
}

func TestCachedKeysServeWhenTheIssuerIsDown(t *testing.T) {
	is := newTestIssuer(t, "")
	logs := new(syncBuffer)
	v := is.verifier(logs)
	clk := useClock(v)
	is.down.Store(true)
	clk.add(RefetchInterval)

	// An unknown kid: the fetch fails, is logged, and the token is refused.
	_, err := v.Verify(context.Background(), is.sign(is.newKey("RS256", "new"), is.claims(clk.now()), nil))
	if got := ReasonOf(err); got != ReasonUnknownKey {
		t.Fatalf("reason = %q, want %q", got, ReasonUnknownKey)
	}
	if got, want := is.jwksHits.Load(), int32(1); got != want {
		t.Fatalf("key set fetched %d times, want %d", got, want) // the 503 is not counted
	}
	if !logs.contains("level=WARN", "cached keys keep serving", "503") {
		t.Errorf("the failed fetch was not logged:\n%s", logs)
	}
	// The cached keys keep serving, also once they are old.
	clk.add(2 * KeyMaxAge)
	for _, alg := range Algorithms {
		if _, err := v.Verify(context.Background(), is.sign(is.key("k-"+alg), is.claims(clk.now()), nil)); err != nil {
			t.Errorf("%s: %v", alg, err)
		}
	}
	v.keys.bg.Wait()
	for _, alg := range Algorithms {
		if _, err := v.Verify(context.Background(), is.sign(is.key("k-"+alg), is.claims(clk.now()), nil)); err != nil {
			t.Errorf("%s after a failed refresh: %v", alg, err)
		}
	}

	// The issuer closed for good (connection refused): the same.
	is.srv.Close()
	clk.add(RefetchInterval)
	_, err = v.Verify(context.Background(), is.sign(is.newKey("RS256", "new2"), is.claims(clk.now()), nil))
	if got := ReasonOf(err); got != ReasonUnknownKey {
		t.Fatalf("reason = %q, want %q", got, ReasonUnknownKey)
	}
	if _, err := v.Verify(context.Background(), is.sign(is.key("k-ES256"), is.claims(clk.now()), nil)); err != nil {
		t.Error(err)
	}
}

func TestOldKeySetIsRefreshedInTheBackground(t *testing.T) {
	is := newTestIssuer(t, "")
	v := is.verifier(nil)
	clk := useClock(v)
	es := is.key("k-ES256")
	is.withdraw(es.kid) // the issuer withdraws a key

	clk.add(KeyMaxAge - time.Minute)
	if _, err := v.Verify(context.Background(), is.sign(es, is.claims(clk.now()), nil)); err != nil {
		t.Fatalf("before KeyMaxAge: %v", err)
	}
	v.keys.bg.Wait()
	if got, want := is.jwksHits.Load(), int32(1); got != want {
		t.Fatalf("key set fetched %d times, want %d", got, want)
	}
	// Past KeyMaxAge, a request starts a refresh (and is not held by it);
	// then the withdrawn key is refused.
	clk.add(2 * time.Minute)
	_, _ = v.Verify(context.Background(), is.sign(es, is.claims(clk.now()), nil))
	v.keys.bg.Wait()
	if got, want := is.jwksHits.Load(), int32(2); got != want {
		t.Fatalf("key set fetched %d times, want %d", got, want)
	}
	_, err := v.Verify(context.Background(), is.sign(es, is.claims(clk.now()), nil))
	if got := ReasonOf(err); got != ReasonUnknownKey {
		t.Fatalf("withdrawn key: reason = %q, want %q", got, ReasonUnknownKey)
	}
}

func TestKeySetContents(t *testing.T) {
	is := newTestIssuer(t, "")
	es := is.key("k-ES256")
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		jwks    string
		wantErr string // at start; "" = starts, and es verifies
	}{
		{"not JSON", "<html>", "not a JWK Set"},
		{"empty", `{"keys":[]}`, "no usable key"},
		{"only an encryption key and an HMAC key", fmt.Sprintf(`{"keys":[%s,{"kty":"oct","k":"c2VjcmV0","kid":"h"}]}`,
			strings.Replace(jwkOf(t, is, es), `"use":"sig"`, `"use":"enc"`, 1)), "no usable key"},
		{"a P-384 key only", fmt.Sprintf(`{"keys":[%s]}`, jwkOf(t, is, testKey{kid: "p384", priv: p384})), "no usable key"},
		{"a broken key beside a good one", fmt.Sprintf(`{"keys":[{"kty":"RSA","kid":"bad","n":"!!","e":"AQAB"},%s]}`, jwkOf(t, is, es)), ""},
		{"too large", `{"keys":[],"pad":"` + strings.Repeat("x", MaxDocumentBytes) + `"}`, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is.mu.Lock()
			is.jwksBody = []byte(tt.jwks)
			is.mu.Unlock()
			v, err := New(context.Background(), Config{Issuer: is.URL, Resource: testResource})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "/jwks") {
					t.Fatalf("err = %v, want one naming the key set and %q", err, tt.wantErr)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.Verify(context.Background(), is.sign(es, is.claims(time.Now()), nil)); err != nil {
				t.Error(err)
			}
		})
	}
}

// jwkOf is the public JWK of k as the issuer publishes it.
func jwkOf(t *testing.T, is *testIssuer, k testKey) string {
	t.Helper()
	is.mu.Lock()
	defer is.mu.Unlock()
	saved := is.published
	is.published = []testKey{k}
	defer func() { is.published = saved }()
	set := string(is.jwks())
	return strings.TrimSuffix(strings.TrimPrefix(set, `{"keys":[`), `]}`)
}
