package main

// Protocol 2026-07-28 against serve --http, default and --stateless,
// through the real binary: go-sdk 1.8's client, and mcp-go's default
// Streamable HTTP client (github.com/mark3labs/mcp-go, a third-party
// client that negotiates the same way by its own code).

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeBothErasGoSDK: go-sdk's client negotiates 2026-07-28 at the
// default endpoint and with --stateless, without a session and without a
// refusal in the log; pinned to 2025-11-25 it gets a session at the
// default endpoint, and none with --stateless.
func TestServeBothErasGoSDK(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	for _, extra := range [][]string{nil, {"--stateless"}} {
		s := startHTTPServe(t, c, "127.0.0.1:0", extra...)
		for _, version := range []string{"", "2025-11-25"} {
			ctx, cancel := context.WithTimeout(t.Context(), sessionLimit)
			hc, _ := clientWithBearer(t, "")
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-eras", Version: "0"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: hc, MaxRetries: -1},
				&mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				cancel()
				t.Fatalf("serve %q: connect (%q): %v; stderr: %s", extra, version, err, s.stderr)
			}
			got := cs.InitializeResult().ProtocolVersion
			want := version
			if want == "" {
				want = "2026-07-28"
			}
			if got != want {
				t.Errorf("serve %q: go-sdk's client asking for %q negotiated %s, want %s", extra, version, got, want)
			}
			if id := releaseOf(t, ctx, cs); id != "rel_42" {
				t.Errorf("serve %q, protocol %s: release_info %s", extra, got, id)
			}
			wantSession := version != "" && extra == nil
			if (cs.ID() != "") != wantSession {
				t.Errorf("serve %q, protocol %s: session %q, want one: %v", extra, got, cs.ID(), wantSession)
			}
			t.Logf("serve --http %s: go-sdk asking %q → protocol %s, session %q", strings.Join(extra, " "), version, got, cs.ID())
			cs.Close()
			cancel()
		}
		if code, _ := s.stop(t); code != exitOK {
			t.Errorf("exit %d; stderr: %s", code, s.stderr)
		}
		stderr := s.stderr.String()
		for _, refusal := range []string{"-32022", "rejecting request with protocol version", "level=WARN", "level=ERROR"} {
			if strings.Contains(stderr, refusal) {
				t.Errorf("serve %q: the log shows %q:\n%s", extra, refusal, stderr)
			}
		}
	}
}

// TestServeMCPGoClient: mcp-go's default Streamable HTTP client (v1.2.1)
// probes with server/discover, negotiates 2026-07-28 and calls tools, at
// the default endpoint and with --stateless; pinned to 2025-06-18 it
// takes the initialize handshake and a session.
func TestServeMCPGoClient(t *testing.T) {
	t.Parallel()
	c, _ := servedCLI(t)
	for _, extra := range [][]string{nil, {"--stateless"}} {
		s := startHTTPServe(t, c, "127.0.0.1:0", extra...)
		for _, version := range []string{"", "2025-06-18"} {
			ctx, cancel := context.WithTimeout(t.Context(), sessionLimit)
			mc, err := mcpgoclient.NewStreamableHttpClient(s.url)
			if err != nil {
				t.Fatal(err)
			}
			if err := mc.Start(ctx); err != nil {
				t.Fatalf("mcp-go Start: %v", err)
			}
			init, err := mc.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
				ProtocolVersion: version, ClientInfo: mcpgo.Implementation{Name: "mcp-go", Version: "1.2.1"}}})
			if err != nil {
				t.Fatalf("serve %q: mcp-go Initialize (%q): %v; stderr: %s", extra, version, err, s.stderr)
			}
			want := version
			if want == "" {
				want = "2026-07-28"
			}
			if init.ProtocolVersion != want {
				t.Errorf("serve %q: mcp-go asking %q negotiated %s, want %s", extra, version, init.ProtocolVersion, want)
			}
			tools, err := mc.ListTools(ctx, mcpgo.ListToolsRequest{})
			if err != nil {
				t.Fatalf("serve %q, protocol %s: tools/list: %v", extra, init.ProtocolVersion, err)
			}
			if !slices.ContainsFunc(tools.Tools, func(tool mcpgo.Tool) bool { return tool.Name == "schema_get_table" }) {
				t.Errorf("serve %q, protocol %s: tools/list lists %d tools, without schema_get_table", extra, init.ProtocolVersion, len(tools.Tools))
			}
			res, err := mc.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{
				Name: "schema_get_table", Arguments: map[string]any{"table": "posts"}}})
			if err != nil || res.IsError || len(res.Content) != 1 {
				t.Fatalf("serve %q, protocol %s: schema_get_table: %+v, %v", extra, init.ProtocolVersion, res, err)
			}
			var table struct {
				Name string `json:"name"`
			}
			if text, ok := res.Content[0].(mcpgo.TextContent); !ok || json.Unmarshal([]byte(text.Text), &table) != nil ||
				table.Name != "posts" {
				t.Errorf("serve %q, protocol %s: schema_get_table answered %+v", extra, init.ProtocolVersion, res.Content[0])
			}
			t.Logf("serve --http %s: mcp-go asking %q → protocol %s, session %q, %d tools, schema_get_table ok",
				strings.Join(extra, " "), version, init.ProtocolVersion, mc.GetSessionId(), len(tools.Tools))
			mc.Close()
			cancel()
		}
		if code, _ := s.stop(t); code != exitOK {
			t.Errorf("exit %d; stderr: %s", code, s.stderr)
		}
		stderr := s.stderr.String()
		if strings.Contains(stderr, "-32022") || strings.Contains(stderr, "level=WARN") {
			t.Errorf("serve %q: the log shows a refusal:\n%s", extra, stderr)
		}
		t.Logf("serve --http %s log:\n%s", strings.Join(extra, " "), grepLines(stderr, "msg=request"))
	}
}
