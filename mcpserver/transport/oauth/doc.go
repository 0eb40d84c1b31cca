// Package oauth makes hubsnap an OAuth 2.1 resource server (docs/team.md,
// `serve --http ADDR --auth-issuer URL [--resource URL]`).
//
// The team's identity provider (or the Hub) is the authorization server:
// clients sign the user in there with the authorization code flow and
// PKCE, and send the access token it issues to hubsnap. A Verifier checks
// those tokens:
//
//   - At start, New discovers the issuer (RFC 8414 metadata, else OpenID
//     Connect discovery), whose issuer must equal the configured one
//     exactly, and fetches its key set (jwks_uri).
//   - Access tokens are JWTs (RFC 9068) signed with RS256, ES256 or EdDSA.
//     Checked: the signature, typ, iss, exp and nbf (60 s leeway), and aud
//     containing the resource URL (RFC 8707). Scopes come from scope or scp
//     and are matched by mcpserver/access like issued tokens.
//   - Keys are cached. A token naming an unknown kid makes the Verifier
//     fetch the key set again, at most once every 10 s, so a key rotation
//     needs no restart; a key set older than an hour is refreshed in the
//     background, so a key the issuer withdrew stops working. A failed
//     fetch after start is logged and the cached keys keep serving.
//
// For HTTP, the Verifier serves the RFC 9728 protected-resource metadata
// (MetadataHandler), guards a handler (Require), and writes the
// WWW-Authenticate challenges of docs/team.md (Unauthorized,
// InsufficientScope). VerifyToken is a go-sdk auth.TokenVerifier.
//
// JWTs are parsed and their signatures checked by github.com/golang-jwt/jwt/v5
// (which go-sdk already depends on); JSON Web Keys are parsed and validated
// by github.com/MicahParks/jwkset. The fetching and caching policy is this
// package's own.
//
// # What is not here
//
// Where the Verifier sits in a request, and the request log, are package
// transport's (http_access.go); the scope a request needs is package
// mcpserver's. oauth imports mcpserver/access only.
package oauth
