// Package access issues and checks the bearer tokens of `hubsnap serve
// --http`, and decides what each token may read.
//
// A token is a random secret that `hubsnap token create` prints once. The
// config folder keeps only its SHA-256 hash, its name, its scopes and when
// it was made, in a file only its owner can read (see File). A running
// server reads that file again when it changes (see Keeper), so a token
// made or revoked by another process counts from the next request on.
//
// Scopes follow the resource:action pattern of the user's bkend protocol:
// table:read, logic:read and release:read, with the wildcards table:*,
// *:read and * (see Allows).
//
// # What is not here
//
// Which scope each tool and resource needs is package mcpserver's
// (scopes.go); checking a request's token over HTTP is package
// transport's. access is a leaf: it imports store/atomicfile only, so the
// server, its transports and cmd/hubsnap's token commands all read it.
package access
