package oauth

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDiscovery(t *testing.T) {
	const (
		asPath   = "/.well-known/oauth-authorization-server"
		oidcPath = "/.well-known/openid-configuration"
	)
	tests := []struct {
		name          string
		path          string
		rfc8414, oidc bool
		wantHits      []string // metadata paths requested, in order
	}{
		{"RFC 8414", "", true, true, []string{asPath}},
		{"OpenID fallback", "", false, true, []string{asPath, oidcPath}},
		{"RFC 8414, issuer with a path", "/tenant1", true, false, []string{asPath + "/tenant1"}},
		{"OpenID appended to an issuer with a path", "/tenant1", false, true, []string{asPath + "/tenant1", "/tenant1" + oidcPath}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := newTestIssuer(t, tt.path)
			is.rfc8414, is.oidc = tt.rfc8414, tt.oidc
			v := is.verifier(nil)
			if got, want := v.JWKSURI(), is.srv.URL+"/jwks"; got != want {
				t.Errorf("JWKSURI = %q, want %q", got, want)
			}
			for _, p := range tt.wantHits {
				if is.hits(p) != 1 {
					t.Errorf("%s requested %d times, want 1", p, is.hits(p))
				}
			}
			if _, err := v.Verify(context.Background(), is.sign(is.key("k-EdDSA"), is.claims(time.Now()), nil)); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestMetadataURLs(t *testing.T) {
	tests := []struct {
		issuer string
		want   []string
	}{
		{"https://as.example", []string{
			"https://as.example/.well-known/oauth-authorization-server",
			"https://as.example/.well-known/openid-configuration",
		}},
		{"https://as.example/", []string{
			"https://as.example/.well-known/oauth-authorization-server",
			"https://as.example/.well-known/openid-configuration",
		}},
		{"https://as.example/realms/team/", []string{
			"https://as.example/.well-known/oauth-authorization-server/realms/team",
			"https://as.example/realms/team/.well-known/openid-configuration",
			"https://as.example/.well-known/openid-configuration/realms/team",
		}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, metadataURLs(tt.issuer)); diff != "" {
			t.Errorf("metadataURLs(%q) (-want +got):\n%s", tt.issuer, diff)
		}
	}
}

func TestStartErrors(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	hang := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(hang) })
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "oops", http.StatusInternalServerError)
	}))
	t.Cleanup(broken.Close)
	mismatch := newTestIssuer(t, "")
	mismatch.metaIss = mismatch.URL + "/"
	none := newTestIssuer(t, "")
	none.rfc8414 = false
	notJSON := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("<html>"))
	}))
	t.Cleanup(notJSON.Close)

	tests := []struct {
		name             string
		issuer, resource string
		want             []string // in the error
	}{
		{"unreachable issuer", closed.URL, testResource, []string{closed.URL + "/.well-known/oauth-authorization-server", "unreachable"}},
		{"issuer that does not answer", hanging.URL, testResource, []string{hanging.URL, "unreachable", "deadline"}},
		{"server error", broken.URL, testResource, []string{broken.URL, "500"}},
		{"metadata naming another issuer", mismatch.URL, testResource, []string{"names the issuer", mismatch.URL + "/"}},
		{"no metadata", none.URL, testResource, []string{"no authorization server metadata", "(404)"}},
		{"metadata not JSON", notJSON.URL, testResource, []string{"not a JSON object"}},
		{"http issuer not on loopback", "http://as.example", testResource, []string{"use https"}},
		{"issuer with a query", "https://as.example/?x=1", testResource, []string{"no query"}},
		{"no issuer", "", testResource, []string{"auth issuer: empty"}},
		{"relative resource", "https://as.example", "/mcp", []string{"not an absolute"}},
		{"resource with a fragment", "https://as.example", testResource + "#x", []string{"no query or fragment"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			_, err := New(ctx, Config{Issuer: tt.issuer, Resource: tt.resource})
			if err == nil {
				t.Fatal("started")
			}
			t.Log(err)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestJWKSURIMustBeHTTPS(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"issuer":"http://` + r.Host + `","jwks_uri":"http://keys.example/jwks"}`))
	}))
	t.Cleanup(srv.Close)
	_, err := New(context.Background(), Config{Issuer: srv.URL, Resource: testResource})
	if err == nil || !strings.Contains(err.Error(), "jwks_uri") || !strings.Contains(err.Error(), "use https") {
		t.Fatalf("err = %v", err)
	}
}
