package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Limits of the Verifier.
const (
	// Leeway is the clock skew allowed on exp and nbf.
	Leeway = 60 * time.Second
	// RefetchInterval is the least time between two fetches of the key
	// set: a token naming an unknown kid triggers a fetch only when the
	// last one is at least this old.
	RefetchInterval = 10 * time.Second
	// KeyMaxAge is how old the cached key set may grow before a token
	// makes the Verifier refresh it in the background.
	KeyMaxAge = time.Hour
	// FetchTimeout bounds each request to the issuer.
	FetchTimeout = 10 * time.Second
	// MaxDocumentBytes bounds the metadata and key set documents.
	MaxDocumentBytes = 1 << 20
)

// Algorithms are the JWS algorithms an access token may be signed with.
// Every other one, "none" and the HMAC family included, is refused.
var Algorithms = []string{"RS256", "ES256", "EdDSA"}

// Config configures a Verifier.
type Config struct {
	// Issuer is the authorization server's issuer identifier
	// (--auth-issuer). Its metadata must name exactly this issuer, and so
	// must every token's iss. https, or http on a loopback host.
	Issuer string
	// Resource is this server's resource identifier (--resource, by
	// default the URL served, http://ADDR/mcp): a token's aud must contain
	// it. An absolute http(s) URL without query or fragment.
	Resource string
	// ResourceName is the human-readable name in the protected-resource
	// metadata; "hubsnap" when empty.
	ResourceName string
	// Client makes the requests to the issuer. When nil, a client with
	// FetchTimeout that refuses redirects from https to http. Each request
	// is bounded by FetchTimeout either way.
	Client *http.Client
	// Log receives key set fetch failures (Warn) and key changes (Info).
	// Never a token.
	Log *slog.Logger
}

// Verifier checks the access tokens of one issuer for one resource. It is
// safe for concurrent use.
type Verifier struct {
	issuer, resource, name string
	jwksURI                string
	metadataURL            string
	metadataPath           string
	keys                   *keySet
	now                    func() time.Time
}

// New discovers the issuer and fetches its key set. ctx bounds the whole
// start; every error names what failed (an unreachable issuer, metadata
// naming another issuer, a key set without a usable key, ...) and is meant
// to be shown to the user as is.
func New(ctx context.Context, cfg Config) (*Verifier, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	metadataURL, metadataPath, err := resourceMetadata(cfg.Resource)
	if err != nil {
		return nil, err
	}
	client := cfg.Client
	if client == nil {
		client = &http.Client{Timeout: FetchTimeout, CheckRedirect: noDowngrade}
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	name := cfg.ResourceName
	if name == "" {
		name = "hubsnap"
	}
	meta, err := discover(ctx, client, cfg.Issuer)
	if err != nil {
		return nil, err
	}
	v := &Verifier{
		issuer:       cfg.Issuer,
		resource:     cfg.Resource,
		name:         name,
		jwksURI:      meta.JWKSURI,
		metadataURL:  metadataURL,
		metadataPath: metadataPath,
		now:          time.Now,
	}
	v.keys = &keySet{url: meta.JWKSURI, client: client, log: log, now: func() time.Time { return v.now() }}
	if err := v.keys.fetchFirst(ctx); err != nil {
		return nil, fmt.Errorf("auth issuer %s: key set %s: %w", cfg.Issuer, meta.JWKSURI, err)
	}
	return v, nil
}

// Check checks the issuer and the resource identifier as New does, without
// contacting anything: a mistake in either is the user's to fix.
func (cfg Config) Check() error {
	if err := checkIssuer(cfg.Issuer); err != nil {
		return err
	}
	_, _, err := resourceMetadata(cfg.Resource)
	return err
}

// Issuer is the issuer the Verifier trusts.
func (v *Verifier) Issuer() string { return v.issuer }

// Resource is the resource identifier tokens must be for.
func (v *Verifier) Resource() string { return v.resource }

// JWKSURI is where the issuer publishes its keys (from its metadata).
func (v *Verifier) JWKSURI() string { return v.jwksURI }

// checkIssuer checks an issuer identifier as RFC 8414 §2 asks: an https
// URL (http only on a loopback host) without query or fragment.
func checkIssuer(issuer string) error {
	if issuer == "" {
		return errors.New("auth issuer: empty")
	}
	u, err := url.Parse(issuer)
	if err != nil {
		return fmt.Errorf("auth issuer %q: %w", issuer, err)
	}
	if err := checkHTTPS(u); err != nil {
		return fmt.Errorf("auth issuer %q: %w", issuer, err)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return fmt.Errorf("auth issuer %q: an issuer has no query or fragment", issuer)
	}
	return nil
}

// resourceMetadata checks a resource identifier and returns where RFC
// 9728 §3.1 puts its metadata, as a URL and a path:
// /.well-known/oauth-protected-resource inserted between the host and the
// resource's path.
func resourceMetadata(resource string) (metadataURL, path string, err error) {
	u, err := url.Parse(resource)
	if err != nil {
		return "", "", fmt.Errorf("resource %q: %w", resource, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return "", "", fmt.Errorf("resource %q: not an absolute http(s) URL", resource)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", "", fmt.Errorf("resource %q: a resource has no query or fragment", resource)
	}
	path = metadataPrefix
	if p := u.EscapedPath(); p != "" && p != "/" {
		path += p
	}
	m := url.URL{Scheme: u.Scheme, Host: u.Host}
	return m.String() + path, path, nil
}

// metadataPrefix is RFC 9728's well-known path.
const metadataPrefix = "/.well-known/oauth-protected-resource"

// checkHTTPS accepts an https URL with a host, or an http one whose host
// is loopback (a provider on the same machine, as in tests).
func checkHTTPS(u *url.URL) error {
	if u.Host == "" {
		return errors.New("not an absolute URL")
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	case u.Scheme == "http":
		return errors.New("plain http is accepted only on a loopback host; use https")
	default:
		return fmt.Errorf("scheme %q: use https", u.Scheme)
	}
}

// noDowngrade refuses a redirect from https to http, and long chains.
func noDowngrade(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("too many redirects")
	}
	if via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect from https to %s refused", req.URL.Scheme)
	}
	return nil
}

// isLoopback reports whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
