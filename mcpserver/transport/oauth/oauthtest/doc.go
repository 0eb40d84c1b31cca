// Package oauthtest runs a real authorization server for hubsnap's OAuth
// tests: the OpenID-certified npm package oidc-provider (pinned,
// ProviderVersion) on Node 22, configured by testdata/provider.mjs.
//
// Start installs both with npm into a cache folder once (the way
// .ci/conformance installs Node), starts the provider on a loopback port,
// and stops it when the test ends. When npm or its registry cannot be
// reached, the test is skipped with one line, "oidc-provider: SKIPPED,
// <why>": these tests never fail for want of a network.
//
// The provider has public clients (ClientID) for the authorization code
// flow with PKCE, issues RFC 9068 JWT access tokens for any resource named
// with RFC 8707's resource parameter, and signs the account Account in
// without a human. Fetcher completes that sign-in for go-sdk's
// auth.AuthorizationCodeHandler.
//
// # What is not here
//
// hubsnap's resource server (package oauth) and the tests that use it
// (packages oauth, transport and cmd/hubsnap).
package oauthtest
