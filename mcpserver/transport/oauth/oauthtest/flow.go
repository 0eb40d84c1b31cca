package oauthtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Fetcher is a headless auth.AuthorizationCodeFetcher: where a person
// would open the authorization URL in a browser, it follows the provider's
// redirects (with cookies, as a browser would, through its automatic
// sign-in and consent) until one leads to redirectURL, and returns that
// redirect's code, state and iss. An error response (error=...) is an
// error.
func Fetcher(redirectURL string) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		jar, err := cookiejar.New(nil)
		if err != nil {
			return nil, err
		}
		browser := &http.Client{
			Jar:     jar,
			Timeout: 10 * time.Second,
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if strings.HasPrefix(req.URL.String(), redirectURL) {
					return http.ErrUseLastResponse
				}
				if len(via) >= 10 {
					return errors.New("more than 10 redirects")
				}
				return nil
			},
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := browser.Do(req)
		if err != nil {
			return nil, fmt.Errorf("authorization request: %w", err)
		}
		defer resp.Body.Close()
		loc := resp.Header.Get("Location")
		if !strings.HasPrefix(loc, redirectURL) {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 2<<10))
			return nil, fmt.Errorf("authorization request: ended at %s with %d, not at the redirect URL: %s", resp.Request.URL, resp.StatusCode, body)
		}
		u, err := url.Parse(loc)
		if err != nil {
			return nil, err
		}
		q := u.Query()
		if e := q.Get("error"); e != "" {
			return nil, fmt.Errorf("authorization response: %s: %s", e, q.Get("error_description"))
		}
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
}

// Handler is go-sdk's client side of the flow, as an MCP client would
// configure it for this provider: the pre-registered public client for alg,
// the loopback redirect, Fetcher. filter, when not nil, narrows the scopes
// the client asks for (auth.AuthorizationCodeHandlerConfig.ScopeFilter).
func (p *Provider) Handler(alg string, filter func([]string) []string) *auth.AuthorizationCodeHandler {
	p.tb.Helper()
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient:      &oauthex.ClientCredentials{ClientID: ClientID(alg), Issuer: p.Issuer},
		RedirectURL:              RedirectURL,
		AuthorizationCodeFetcher: Fetcher(RedirectURL),
		ScopeFilter:              filter,
	})
	if err != nil {
		p.tb.Fatal(err)
	}
	return h
}

// Authorize has h answer a resource's challenge as go-sdk's MCP transport
// does: it sends req (to a protected resource, without a token), hands the
// 401 or 403 with its WWW-Authenticate to h.Authorize (which reads the
// resource's RFC 9728 metadata, discovers the provider, and runs the code
// flow with PKCE and the resource indicator), and returns the access token.
func Authorize(ctx context.Context, h *auth.AuthorizationCodeHandler, req *http.Request) (string, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		resp.Body.Close()
		return "", fmt.Errorf("the resource answered %s, not a challenge", resp.Status)
	}
	if err := h.Authorize(ctx, req, resp); err != nil {
		return "", fmt.Errorf("authorize: %w", err)
	}
	ts, err := h.TokenSource(ctx)
	if err != nil || ts == nil {
		return "", fmt.Errorf("no token source: %v", err)
	}
	tok, err := ts.Token()
	if err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}
