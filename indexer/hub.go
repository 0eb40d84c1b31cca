package indexer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hubsnap/hubsnap/store"
)

// Defaults of a Hub client.
const (
	DefaultMaxBodySize    = 256 << 20
	DefaultConnectTimeout = 10 * time.Second
	DefaultRetries        = 3
	defaultBackoff        = 500 * time.Millisecond
	defaultMaxRetryAfter  = 60 * time.Second
	maxListingSize        = 16 << 20
)

// Hub is a client of the Hub's release API (docs/design.md, "The Hub
// protocol"). It never logs or returns its token.
type Hub struct {
	base  *url.URL
	token string
	http  *http.Client

	// MaxBodySize caps a snapshot, counted after gzip decoding.
	MaxBodySize int64
	// Retries is how many times a request is tried again after a 429, a 5xx
	// or a transient network failure.
	Retries int
	// Backoff is the first wait before retrying; it doubles each time.
	Backoff time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits for; a
	// longer one fails at once.
	MaxRetryAfter time.Duration
	// Progress, when set, is called as a snapshot downloads with the bytes
	// read so far and the total (-1 when unknown).
	Progress func(done, total int64)
}

// HubOptions configure NewHub.
type HubOptions struct {
	Token          string        // bearer token; "" for none
	ConnectTimeout time.Duration // dialing and TLS handshake; default 10s
}

// NewHub returns a client of the Hub at rawURL, an http or https URL.
func NewHub(rawURL string, opts HubOptions) (*Hub, error) {
	u, err := url.Parse(strings.TrimRight(rawURL, "/"))
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, store.Errorf(store.InvalidArgument, "hub URL %s is not valid: want http(s)://host[/path]", quote(redact(rawURL)))
	case u.User != nil:
		// Credentials in a URL end up in shell history, config files and
		// messages; the token has a safer way in.
		return nil, store.Errorf(store.InvalidArgument, "hub URL %s must not hold credentials: give the token in %s or a token file",
			quote(redact(rawURL)), "HUBSNAP_TOKEN")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, store.Errorf(store.InvalidArgument, "hub URL %s must not have a query or fragment", quote(rawURL))
	}
	ct := opts.ConnectTimeout
	if ct <= 0 {
		ct = DefaultConnectTimeout
	}
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: ct, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   ct,
		ResponseHeaderTimeout: 2 * time.Minute,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
		// Compression is ours to handle: it lets the size limit apply to
		// the decoded body and the digest cover the decoded document.
		DisableCompression: true,
	}
	return &Hub{
		base:          u,
		token:         opts.Token,
		http:          &http.Client{Transport: transport},
		MaxBodySize:   DefaultMaxBodySize,
		Retries:       DefaultRetries,
		Backoff:       defaultBackoff,
		MaxRetryAfter: defaultMaxRetryAfter,
	}, nil
}

// URL returns the Hub's base URL without any credentials, for messages.
func (h *Hub) URL() string { return redactURL(h.base) }

// Listing is one release as the Hub lists it.
type Listing struct {
	ID          string `json:"id"`
	Version     int64  `json:"version"`
	Environment string `json:"environment"`
	CreatedAt   string `json:"createdAt"`
	Digest      string `json:"digest"`
}

var digestPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// ListReleases lists the releases of project in environment.
func (h *Hub) ListReleases(ctx context.Context, project, environment string) ([]Listing, error) {
	if err := CheckName("project", project); err != nil {
		return nil, err
	}
	if err := CheckName("environment", environment); err != nil {
		return nil, err
	}
	u := h.endpoint("v1", "projects", project, "releases")
	u.RawQuery = url.Values{"environment": {environment}}.Encode()
	what := fmt.Sprintf("list releases of project %q", project)
	resp, err := h.get(ctx, u, "", what)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if err := h.check(resp, what, fmt.Sprintf("project %q not found on the hub at %s", project, h.URL())); err != nil {
		return nil, err
	}
	body, err := readBody(resp, maxListingSize, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var list struct {
		Releases []Listing `json:"releases"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("%s: the hub at %s sent an invalid listing: %v", what, h.URL(), err)
	}
	out := list.Releases[:0]
	for _, l := range list.Releases {
		if l.Environment == "" || l.Environment == environment {
			l.Digest = strings.ToLower(l.Digest)
			out = append(out, l)
		}
	}
	return out, nil
}

// Pick chooses the release to sync from a listing: the one with id when id
// is not "", else the highest version (ties go to the newest createdAt, then
// the greatest id). The choice is checked before anything uses it.
func Pick(list []Listing, project, environment, id string) (Listing, error) {
	var best Listing
	found := false
	for _, l := range list {
		switch {
		case id != "":
			if l.ID != id {
				continue
			}
		case found && (l.Version < best.Version ||
			l.Version == best.Version && (l.CreatedAt < best.CreatedAt ||
				l.CreatedAt == best.CreatedAt && l.ID < best.ID)):
			continue
		}
		best, found = l, true
	}
	if !found {
		if id != "" {
			return best, store.Errorf(store.NotFound, "release %q not found for project %q, environment %q", id, project, environment)
		}
		return best, store.Errorf(store.NotFound, "project %q has no releases in environment %q", project, environment)
	}
	if !ValidName(best.ID) {
		return best, fmt.Errorf("the hub listed a release id %s that is not valid: it must match %s", quote(best.ID), NamePattern)
	}
	if !digestPattern.MatchString(best.Digest) {
		return best, fmt.Errorf("the hub listed release %q with digest %s: want sha256:<64 hex digits>", best.ID, quote(best.Digest))
	}
	return best, nil
}

// ErrNotModified is returned by FetchSnapshot when the Hub answers 304 to
// the digest the caller already holds.
var ErrNotModified = errors.New("snapshot not modified")

// FetchSnapshot downloads the snapshot of release l to a new temp file in
// dir, hashing it as it comes, and verifies that its sha256 equals
// l.Digest. It returns the file, open and at its start: the caller reads
// it (as a stream), closes it and removes it. The file is a temp file of
// store/atomicfile (a dot, then .part-): the cache watcher ignores it, and
// while it is open it is locked, so no other hubsnap removes it; once its
// process is gone, the next writer does. When have is the digest of a copy the caller already holds, the
// Hub may answer 304 and FetchSnapshot returns ErrNotModified. On any
// failure no file is left.
func (h *Hub) FetchSnapshot(ctx context.Context, project string, l Listing, have, dir string) (*os.File, error) {
	if err := CheckName("project", project); err != nil {
		return nil, err
	}
	if err := CheckName("release id", l.ID); err != nil {
		return nil, err
	}
	u := h.endpoint("v1", "projects", project, "releases", l.ID, "snapshot")
	what := fmt.Sprintf("download release %q", l.ID)
	for attempt := 0; ; attempt++ {
		resp, err := h.get(ctx, u, have, what)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode == http.StatusNotModified && have != "" {
			resp.Body.Close()
			return nil, ErrNotModified
		}
		if err := h.check(resp, what, fmt.Sprintf("release %q of project %q not found on the hub at %s", l.ID, project, h.URL())); err != nil {
			resp.Body.Close()
			return nil, err
		}
		f, digest, err := saveBody(resp, dir, l.ID+".download", h.MaxBodySize, h.Progress)
		resp.Body.Close()
		var re *readError
		if errors.As(err, &re) && re.transient && attempt < h.Retries && ctx.Err() == nil {
			if werr := h.wait(ctx, attempt, 0); werr != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if digest != l.Digest {
			f.Close()
			os.Remove(f.Name())
			return nil, fmt.Errorf("%s: digest mismatch: the hub listed %s but the body is %s; nothing was written", what, l.Digest, digest)
		}
		return f, nil
	}
}

func (h *Hub) endpoint(segments ...string) *url.URL {
	u := *h.base
	for _, s := range segments {
		u.Path += "/" + s
	}
	u.RawPath = ""
	return &u
}

// get sends a GET, retrying 429, 5xx and transient network failures. The
// caller closes the body of the response it gets.
func (h *Hub) get(ctx context.Context, u *url.URL, ifNoneMatch, what string) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Accept-Encoding", "gzip")
		req.Header.Set("User-Agent", "hubsnap")
		if h.token != "" {
			req.Header.Set("Authorization", "Bearer "+h.token)
		}
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", `"`+ifNoneMatch+`"`)
		}
		resp, err := h.http.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, h.ctxError(ctx, what)
			}
			if attempt < h.Retries && transient(err) {
				if werr := h.wait(ctx, attempt, 0); werr != nil {
					return nil, werr
				}
				continue
			}
			return nil, h.netError(what, err)
		}
		if retryable(resp.StatusCode) && attempt < h.Retries {
			after, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now())
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			if ok && after > h.MaxRetryAfter {
				return nil, fmt.Errorf("%s: the hub at %s is busy (%s) and asks to retry after %s; try again later",
					what, h.URL(), resp.Status, after.Round(time.Second))
			}
			if err := h.wait(ctx, attempt, after); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
}

// wait sleeps before retry number attempt+1: Retry-After when the Hub sent
// one, else an exponential backoff with jitter.
func (h *Hub) wait(ctx context.Context, attempt int, retryAfter time.Duration) error {
	d := retryAfter
	if d <= 0 {
		d = h.Backoff << attempt
		d += time.Duration(rand.Int64N(int64(d)/4 + 1))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return h.ctxError(ctx, "wait to retry")
	case <-t.C:
		return nil
	}
}

// check turns a response that is not 200 into an error.
func (h *Hub) check(resp *http.Response, what, notFound string) error {
	switch code := resp.StatusCode; {
	case code == http.StatusOK:
		return nil
	case code == http.StatusUnauthorized && h.token == "":
		return fmt.Errorf("%s: the hub at %s requires a token (401 Unauthorized): set HUBSNAP_TOKEN or give the context a token file", what, h.URL())
	case code == http.StatusUnauthorized:
		return fmt.Errorf("%s: the hub at %s rejected the token (401 Unauthorized): it is wrong or expired; check HUBSNAP_TOKEN or the context's token file", what, h.URL())
	case code == http.StatusForbidden:
		return fmt.Errorf("%s: the token may not do this (403 Forbidden): ask for a token with access to the project", what)
	case code == http.StatusNotFound:
		return store.Errorf(store.NotFound, "%s (404)", notFound)
	case retryable(code):
		return fmt.Errorf("%s: the hub at %s answered %s %d times; giving up", what, h.URL(), resp.Status, h.Retries+1)
	default:
		return fmt.Errorf("%s: the hub at %s answered %s", what, h.URL(), resp.Status)
	}
}

func retryable(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500 && code <= 599
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs >= 0 {
		return time.Duration(min(secs, 1<<32)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// transient reports whether a network error may pass if tried again.
func transient(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return dnsErr.IsTemporary
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		strings.Contains(err.Error(), "connection reset")
}

// netError describes a failed request without the URL's credentials: the
// *url.Error that net/http returns repeats the whole URL.
func (h *Hub) netError(what string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%s: the hub at %s did not answer in time: %v", what, h.URL(), err)
	}
	return fmt.Errorf("%s: cannot reach the hub at %s: %v", what, h.URL(), err)
}

func (h *Hub) ctxError(ctx context.Context, what string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: timed out talking to the hub at %s", what, h.URL())
	}
	return fmt.Errorf("%s: %w", what, ctx.Err())
}

// redact returns rawURL as typed, unless it holds user info: then it
// returns the URL without user info, query or fragment.
func redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		if strings.Contains(rawURL, "@") {
			return "(a URL that cannot be parsed)"
		}
		return rawURL
	}
	if u.User == nil {
		return rawURL
	}
	return redactURL(u)
}

func redactURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment, c.ForceQuery = nil, "", "", false
	return c.String()
}
