package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Defaults of a Client.
const (
	DefaultMaxBodySize    = 256 << 20
	DefaultConnectTimeout = 10 * time.Second
	DefaultRetries        = 3
	defaultBackoff        = 500 * time.Millisecond
	defaultMaxBackoff     = 10 * time.Second
	defaultMaxRetryAfter  = 60 * time.Second
	maxListingSize        = 16 << 20
)

// Client is a client of the Hub's release API (docs/design.md, "The Hub
// protocol"). It never logs or returns its token.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
	log   *slog.Logger

	// MaxBodySize caps a snapshot, counted after gzip decoding.
	MaxBodySize int64
	// Retries is how many times a request is tried again after a 429, a 5xx
	// or a transient network failure (a body cut off included): a request
	// is sent at most Retries+1 times.
	Retries int
	// Backoff is the first wait before retrying; it doubles each time, up
	// to MaxBackoff, and a random part of up to a quarter is added.
	Backoff time.Duration
	// MaxBackoff caps the doubling of Backoff.
	MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits for; a
	// longer one fails at once.
	MaxRetryAfter time.Duration
	// Progress, when set, is called as a snapshot downloads with the bytes
	// read so far and the total (-1 when unknown).
	Progress func(done, total int64)
}

// Options configure New.
type Options struct {
	Token          string        // bearer token; "" for none
	ConnectTimeout time.Duration // dialing and TLS handshake; default 10s
	// Log receives one Debug record per request sent and one Info record
	// per retry; nil logs nothing.
	Log *slog.Logger
}

// New returns a client of the Hub at rawURL, an http or https URL.
func New(rawURL string, opts Options) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(rawURL, "/"))
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return nil, errorf(Invalid, "hub URL %s is not valid: want http(s)://host[/path]", quote(redact(rawURL)))
	case u.User != nil:
		// Credentials in a URL end up in shell history, config files and
		// messages; the token has a safer way in.
		return nil, errorf(Invalid, "hub URL %s must not hold credentials: give the token in %s or a token file",
			quote(redact(rawURL)), "HUBSNAP_TOKEN")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, errorf(Invalid, "hub URL %s must not have a query or fragment", quote(rawURL))
	}
	ct := opts.ConnectTimeout
	if ct <= 0 {
		ct = DefaultConnectTimeout
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
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
	return &Client{
		base:          u,
		token:         opts.Token,
		http:          &http.Client{Transport: transport},
		log:           log,
		MaxBodySize:   DefaultMaxBodySize,
		Retries:       DefaultRetries,
		Backoff:       defaultBackoff,
		MaxBackoff:    defaultMaxBackoff,
		MaxRetryAfter: defaultMaxRetryAfter,
	}, nil
}

// URL returns the Hub's base URL without any credentials, for messages.
func (h *Client) URL() string { return redactURL(h.base) }

// CloseIdleConnections closes the client's idle keep-alive connections.
func (h *Client) CloseIdleConnections() { h.http.CloseIdleConnections() }

// Listing is one release as the Hub lists it.
type Listing struct {
	ID          string `json:"id"`
	Version     int64  `json:"version"`
	Environment string `json:"environment"`
	CreatedAt   string `json:"createdAt"`
	Digest      string `json:"digest"`
}

// ListReleases lists the releases of project in environment.
func (h *Client) ListReleases(ctx context.Context, project, environment string) ([]Listing, error) {
	if err := checkSegment("project", project); err != nil {
		return nil, err
	}
	if err := checkSegment("environment", environment); err != nil {
		return nil, err
	}
	u := h.endpoint("v1", "projects", project, "releases")
	u.RawQuery = url.Values{"environment": {environment}}.Encode()
	what := fmt.Sprintf("list releases of project %q", project)
	notFound := fmt.Sprintf("project %q not found on the hub at %s", project, h.URL())
	var body []byte
	err := h.request(ctx, u, "", what, func(resp *http.Response) error {
		if err := h.check(resp, what, notFound); err != nil {
			return err
		}
		var err error
		if body, err = readBody(resp, maxListingSize, nil); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
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
func (h *Client) FetchSnapshot(ctx context.Context, project string, l Listing, have, dir string) (*os.File, error) {
	if err := checkSegment("project", project); err != nil {
		return nil, err
	}
	if err := checkSegment("release id", l.ID); err != nil {
		return nil, err
	}
	u := h.endpoint("v1", "projects", project, "releases", l.ID, "snapshot")
	what := fmt.Sprintf("download release %q", l.ID)
	notFound := fmt.Sprintf("release %q of project %q not found on the hub at %s", l.ID, project, h.URL())
	var f *os.File
	var digest string
	err := h.request(ctx, u, have, what, func(resp *http.Response) error {
		if resp.StatusCode == http.StatusNotModified && have != "" {
			return ErrNotModified
		}
		if err := h.check(resp, what, notFound); err != nil {
			return err
		}
		var err error
		if f, digest, err = saveBody(resp, dir, l.ID+".download", h.MaxBodySize, h.Progress); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if digest != l.Digest {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("%s: digest mismatch: the hub listed %s but the body is %s; nothing was written", what, l.Digest, digest)
	}
	return f, nil
}

func (h *Client) endpoint(segments ...string) *url.URL {
	u := *h.base
	for _, s := range segments {
		u.Path += "/" + s
	}
	u.RawPath = ""
	return &u
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

// checkSegment returns an InvalidArgument error unless s can be one
// segment of a request path. The caller checks names against the cache's
// name rules first; this keeps a path from climbing out of the API.
func checkSegment(what, s string) error {
	if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\?#%") {
		return errorf(Invalid, "%s %s cannot be sent to the hub", what, quote(s))
	}
	return nil
}

// quote quotes s for a message, shortening very long values.
func quote(s string) string {
	const max = 80
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}
