package main

// End-to-end tests of the sessions of `hubsnap serve --http` (issue 17):
// the real binary, go-sdk's client and raw HTTP. The revoked token's GET
// stream is in TestServeHTTPTokens; the other clients are in .ci/clients.

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// openStream opens the GET stream of session with token and returns a
// channel closed when the server ends it.
func openStream(tb testing.TB, url, token, session string) <-chan struct{} {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	tr := &http.Transport{DisableKeepAlives: true}
	tb.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		tb.Fatalf("GET stream: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		tb.Fatalf("GET stream: status %d", resp.StatusCode)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
	}()
	return ended
}

// TestServeHTTPIdleSessionGoSDK: go-sdk's client, idle with its GET stream
// open for three times --session-timeout, keeps its session and calls
// again (issue 17, item 1: it failed with "session not found"); its
// 2026-07-28 client needs no session at all.
func TestServeHTTPIdleSessionGoSDK(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	secret := createToken(t, c, "alice", "*")
	s := startHTTPServe(t, c, "127.0.0.1:0", "--session-timeout", "1s")
	for _, version := range []string{"2025-11-25", ""} {
		ctx, cancel := context.WithTimeout(t.Context(), sessionLimit)
		defer cancel()
		httpClient, bt := clientWithBearer(t, secret)
		session, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-idle-e2e", Version: "0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: httpClient},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connect (protocol %q): %v", version, err)
		}
		defer session.Close()
		if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "release_info", Arguments: map[string]any{}}); err != nil {
			t.Fatalf("release_info: %v", err)
		}
		time.Sleep(3 * time.Second)
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "schema_list_tables", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Errorf("protocol %q: a call after 3s idle with --session-timeout 1s: %v", version, err)
		} else {
			t.Logf("protocol %q (session %q, %d GET streams): a call after 3s idle with --session-timeout 1s: ok",
				session.InitializeResult().ProtocolVersion, session.ID(), bt.count(http.MethodGet))
		}
	}
	if code, _ := s.stop(t); code != exitOK {
		t.Errorf("serve --http after SIGTERM: exit %d, want 0; stderr: %s", code, s.stderr)
	}
}
