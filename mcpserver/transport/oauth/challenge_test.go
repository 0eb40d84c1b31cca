package oauth

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/hubsnap/hubsnap/mcpserver/access"
)

const testMetadataURL = "http://127.0.0.1:7420/.well-known/oauth-protected-resource/mcp"

func TestResourceMetadataURL(t *testing.T) {
	tests := []struct{ resource, wantURL, wantPath string }{
		{testResource, testMetadataURL, "/.well-known/oauth-protected-resource/mcp"},
		{"https://hub.example/team/mcp", "https://hub.example/.well-known/oauth-protected-resource/team/mcp", "/.well-known/oauth-protected-resource/team/mcp"},
		{"https://hub.example/", "https://hub.example/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource"},
		{"https://hub.example", "https://hub.example/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource"},
		{"https://hub.example/a%2Fb", "https://hub.example/.well-known/oauth-protected-resource/a%2Fb", "/.well-known/oauth-protected-resource/a%2Fb"},
	}
	for _, tt := range tests {
		gotURL, gotPath, err := resourceMetadata(tt.resource)
		if err != nil || gotURL != tt.wantURL || gotPath != tt.wantPath {
			t.Errorf("resourceMetadata(%q) = %q, %q, %v; want %q, %q", tt.resource, gotURL, gotPath, err, tt.wantURL, tt.wantPath)
		}
	}
}

func TestMetadataHandler(t *testing.T) {
	is := newTestIssuer(t, "")
	v := is.verifier(nil)
	if got, want := v.MetadataURL(), testMetadataURL; got != want {
		t.Errorf("MetadataURL = %q, want %q", got, want)
	}
	if got, want := v.MetadataPath(), "/.well-known/oauth-protected-resource/mcp"; got != want {
		t.Errorf("MetadataPath = %q, want %q", got, want)
	}
	rec := httptest.NewRecorder()
	v.MetadataHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, v.MetadataPath(), nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"resource":                 testResource,
		"authorization_servers":    []any{is.URL},
		"scopes_supported":         []any{"table:read", "logic:read", "release:read"},
		"bearer_methods_supported": []any{"header"},
		"resource_name":            "hubsnap",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
}

func TestChallenges(t *testing.T) {
	tests := []struct {
		name      string
		challenge string
		code      int // of the answer that carries it
		want      string
	}{
		{"no token", Unauthorized(testMetadataURL, ErrNoToken), 401,
			`Bearer resource_metadata="` + testMetadataURL + `", error="invalid_token", error_description="no bearer token"`},
		{"expired", Unauthorized(testMetadataURL, &Error{Reason: ReasonExpired, Detail: "x"}), 401,
			`Bearer resource_metadata="` + testMetadataURL + `", error="invalid_token", error_description="the token expired"`},
		{"another error", Unauthorized(testMetadataURL, errors.New("boom")), 401,
			`Bearer resource_metadata="` + testMetadataURL + `", error="invalid_token", error_description="malformed access token"`},
		{"insufficient scope", InsufficientScope(testMetadataURL, access.LogicRead), 403,
			`Bearer error="insufficient_scope", scope="logic:read", resource_metadata="` + testMetadataURL + `"`},
		{"two scopes", InsufficientScope(testMetadataURL, access.TableRead, access.LogicRead), 403,
			`Bearer error="insufficient_scope", scope="table:read logic:read", resource_metadata="` + testMetadataURL + `"`},
		{"quoting", InsufficientScope(`http://h/a"b\c`+"\n\u00e9", access.TableRead), 403,
			`Bearer error="insufficient_scope", scope="table:read", resource_metadata="http://h/a\"b\\c??"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.challenge != tt.want {
				t.Fatalf("WWW-Authenticate = %q\nwant %q", tt.challenge, tt.want)
			}
			// go-sdk's client reads it back.
			cs, err := oauthex.ParseWWWAuthenticate([]string{tt.challenge})
			if err != nil || len(cs) != 1 || cs[0].Scheme != "bearer" {
				t.Fatalf("ParseWWWAuthenticate: %+v, %v", cs, err)
			}
			if tt.code == 403 && cs[0].Params["error"] != "insufficient_scope" {
				t.Errorf("params %v", cs[0].Params)
			}
			if tt.code == 401 && (cs[0].Params["error"] != "invalid_token" || cs[0].Params["resource_metadata"] != testMetadataURL) {
				t.Errorf("params %v", cs[0].Params)
			}
		})
	}
}

// deny401 answers 401 with the challenge, as mcpserver does.
func deny401(w http.ResponseWriter, challenge, why string) {
	w.Header().Set("WWW-Authenticate", challenge)
	http.Error(w, "unauthorized: "+why, http.StatusUnauthorized)
}

func TestRequire(t *testing.T) {
	is := newTestIssuer(t, "")
	v := is.verifier(nil)
	var seen *auth.TokenInfo
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = auth.TokenInfoFromContext(r.Context())
		w.WriteHeader(http.StatusNoContent)
	})
	type observed struct {
		sub    string
		reason Reason
	}
	var got []observed
	h := v.Require(next, deny401, func(r *http.Request, c *Claims, err error) {
		o := observed{reason: ReasonOf(err)}
		if c != nil {
			o.sub = c.Subject
		}
		got = append(got, o)
	})
	es := is.key("k-ES256")
	now := time.Now()
	late := is.claims(now)
	late["exp"] = now.Add(-30 * time.Second).Unix() // expired, within the leeway
	other := is.claims(now)
	other["aud"] = "http://127.0.0.1:9999/mcp"
	tests := []struct {
		name   string
		header string
		code   int
		desc   string
	}{
		{"no header", "", 401, "no bearer token"},
		{"basic", "Basic YTpi", 401, "no bearer token"},
		{"valid", "Bearer " + is.sign(es, is.claims(now), nil), 204, ""},
		{"lower-case scheme", "bearer " + is.sign(es, is.claims(now), nil), 204, ""},
		{"expired within the leeway", "Bearer " + is.sign(es, late, nil), 204, ""},
		{"another resource", "Bearer " + is.sign(es, other, nil), 401, "the token is for another resource"},
		{"garbage", "Bearer xyz", 401, "malformed access token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen = nil
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			if tt.header != "" {
				r.Header.Set("Authorization", tt.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != tt.code {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.code, rec.Body)
			}
			if tt.code == 204 {
				if seen == nil || seen.UserID != "alice" || ClaimsOf(seen).Subject != "alice" || !cmp.Equal(seen.Scopes, []string{"table:read", "logic:read"}) {
					t.Errorf("TokenInfo in the handler: %+v", seen)
				}
				return
			}
			if seen != nil {
				t.Error("next was called")
			}
			want := `Bearer resource_metadata="` + testMetadataURL + `", error="invalid_token", error_description="` + tt.desc + `"`
			if got := rec.Header().Get("WWW-Authenticate"); got != want {
				t.Errorf("WWW-Authenticate = %q\nwant %q", got, want)
			}
			if strings.Contains(rec.Body.String(), "eyJ") {
				t.Errorf("the body echoes the token: %s", rec.Body)
			}
		})
	}
	want := []observed{{"", ReasonNoToken}, {"", ReasonNoToken}, {"alice", ""}, {"alice", ""}, {"alice", ""}, {"", ReasonWrongAudience}, {"", ReasonMalformed}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(observed{})); diff != "" {
		t.Errorf("observed (-want +got):\n%s", diff)
	}
}
