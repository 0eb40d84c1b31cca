package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// discover finds the issuer's metadata and checks it names the issuer
// exactly and a usable jwks_uri.
//
// go-sdk's auth.GetAuthServerMetadata is a client's discovery: it refuses
// private addresses (an identity provider inside the team's network is the
// common case here), compares issuers loosely and requires PKCE support in
// the metadata, none of which fits a resource server.
func discover(ctx context.Context, client *http.Client, issuer string) (*oauthex.AuthServerMeta, error) {
	var missing []string
	for _, u := range metadataURLs(issuer) {
		var meta oauthex.AuthServerMeta
		status, err := getJSON(ctx, client, u, &meta)
		switch {
		case err != nil:
			return nil, fmt.Errorf("auth issuer %s: metadata %s: %w", issuer, u, err)
		case status >= 400 && status < 500:
			missing = append(missing, fmt.Sprintf("%s (%d)", u, status))
			continue
		case status != http.StatusOK:
			return nil, fmt.Errorf("auth issuer %s: metadata %s: HTTP status %d", issuer, u, status)
		}
		if meta.Issuer != issuer {
			return nil, fmt.Errorf("auth issuer %s: metadata %s names the issuer %q; it must be exactly %q", issuer, u, meta.Issuer, issuer)
		}
		if meta.JWKSURI == "" {
			// RFC 8414 makes jwks_uri optional: try the next document.
			missing = append(missing, u+" (no jwks_uri)")
			continue
		}
		ju, err := url.Parse(meta.JWKSURI)
		if err == nil {
			err = checkHTTPS(ju)
		}
		if err != nil {
			return nil, fmt.Errorf("auth issuer %s: metadata %s: jwks_uri %q: %w", issuer, u, meta.JWKSURI, err)
		}
		return &meta, nil
	}
	return nil, fmt.Errorf("auth issuer %s: no authorization server metadata with a jwks_uri: %s", issuer, strings.Join(missing, ", "))
}

// metadataURLs are where an issuer's metadata may be, in the order tried:
// RFC 8414 §3.1 (the well-known suffix inserted before the issuer's path),
// then OpenID Connect Discovery 1.0 §4 (appended to the issuer), and, for an
// issuer with a path, the OpenID document inserted like RFC 8414's (the
// order of the MCP authorization spec).
func metadataURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	at := func(p string) string {
		c := *u
		c.Path, c.RawPath = "", ""
		return c.String() + p
	}
	urls := []string{at("/.well-known/oauth-authorization-server" + path)}
	urls = append(urls, at(path+"/.well-known/openid-configuration"))
	if path != "" {
		urls = append(urls, at("/.well-known/openid-configuration"+path))
	}
	return urls
}

// getJSON fetches a JSON document of at most MaxDocumentBytes into v,
// within FetchTimeout. It returns the HTTP status; the body is decoded
// only for 200.
func getJSON(ctx context.Context, client *http.Client, u string, v any) (int, error) {
	body, status, err := get(ctx, client, u, "application/json")
	if err != nil || status != http.StatusOK {
		return status, err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return status, fmt.Errorf("not a JSON object: %w", err)
	}
	return status, nil
}

// get fetches u within FetchTimeout, reading at most MaxDocumentBytes.
func get(ctx context.Context, client *http.Client, u, accept string) ([]byte, int, error) {
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // the URL is named by the caller
		}
		return nil, 0, fmt.Errorf("unreachable: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil, resp.StatusCode, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxDocumentBytes+1))
	if err != nil {
		return nil, resp.StatusCode, fmt.Errorf("read: %w", err)
	}
	if len(body) > MaxDocumentBytes {
		return nil, resp.StatusCode, fmt.Errorf("larger than %d bytes", MaxDocumentBytes)
	}
	return body, resp.StatusCode, nil
}
