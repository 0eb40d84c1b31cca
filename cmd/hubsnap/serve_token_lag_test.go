package main

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"
)

// Token changes reach a running serve --http at once (issue 23, item 7):
// a token made by `hubsnap token create` (another process) works for the
// very next request after the command returns, and one removed by `token
// revoke` is refused by the very next request. Before, the server looked
// at its token file at most once a second: 0 of 20 new tokens worked at
// once (each about 0.95 s later), and 0 of 20 revoked ones were refused.

// immediateRounds is how many tokens are made, and revoked, each checked
// by the request right after the command returned.
const immediateRounds = 20

func TestServeHTTPTokenChangesCountAtOnce(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	createToken(t, c, "first", "*") // the server asks for tokens from the start
	s := startHTTPServe(t, c, "127.0.0.1:0")

	accepted, refused := 0, 0
	var lags []time.Duration // from the command's return to the first 200
	for i := range immediateRounds {
		name := fmt.Sprintf("t%02d", i)
		r := runChild(t, c, "", "token", "create", name, "--scopes", "*")
		if r.code != exitOK {
			t.Fatalf("token create %s: exit %d, stderr %q", name, r.code, r.stderr)
		}
		returned := time.Now()
		secret := r.lines()[0]
		c.secrets = append(c.secrets, secret)
		reply := rawPost(t, s.url, secret, "", initializeLine)
		if reply.status == http.StatusOK {
			accepted++
		}
		// How long until it works, for the figure; the test fails below.
		for reply.status == http.StatusUnauthorized && time.Since(returned) < revokePollLimit {
			time.Sleep(5 * time.Millisecond)
			reply = rawPost(t, s.url, secret, "", initializeLine)
		}
		lags = append(lags, time.Since(returned))

		if r := runChild(t, c, "", "token", "revoke", name); r.code != exitOK {
			t.Fatalf("token revoke %s: exit %d, stderr %q", name, r.code, r.stderr)
		}
		if reply := rawPost(t, s.url, secret, "", initializeLine); reply.status == http.StatusUnauthorized {
			refused++
		} else {
			t.Logf("round %d: revoked token answered %d right after token revoke", i, reply.status)
		}
	}
	slices.Sort(lags)
	var total time.Duration
	for _, l := range lags {
		total += l
	}
	t.Logf("of %d tokens made while serving, %d worked for the first request after token create returned; "+
		"a 200 came %v after the command returned on average (median %v, at most %v); "+
		"%d of %d revoked tokens were refused by the first request after token revoke returned",
		immediateRounds, accepted, (total / immediateRounds).Round(time.Millisecond),
		lags[len(lags)/2].Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond), refused, immediateRounds)
	if accepted != immediateRounds {
		t.Errorf("%d of %d new tokens worked at once, want all", accepted, immediateRounds)
	}
	if refused != immediateRounds {
		t.Errorf("%d of %d revoked tokens were refused at once, want all", refused, immediateRounds)
	}
	if code, _ := s.stop(t); code != exitOK {
		t.Errorf("serve --http: exit %d; stderr: %s", code, s.stderr)
	}
}
