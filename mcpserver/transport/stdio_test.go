package transport

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A 2025-03-26 session may send JSON-RPC batches: each request is
// answered, and the responses come back together as one array, with an
// error in place of a malformed element. Later versions refuse them.
func TestStdioBatches(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	for _, tc := range []struct {
		version string
		batches bool
	}{{"2025-03-26", true}, {"2025-06-18", false}, {"2025-11-25", false}} {
		t.Run(tc.version, func(t *testing.T) {
			srv := newServer(t, st)
			lines := []string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + tc.version + `","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				`[{"jsonrpc":"2.0","id":2,"method":"tools/list"},` +
					`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"release_info","arguments":{}}},` +
					`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}},` +
					`{"not":"json-rpc"}]`,
				`[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":98}}]`,
				`[]`,
				`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
			}
			var out lockedBuffer
			errc := make(chan error, 1)
			pr, pw := io.Pipe()
			go func() { errc <- ServeStdio(context.Background(), srv, pr, &out) }()
			// As a client does, the rest only once initialize is answered.
			io.WriteString(pw, lines[0]+"\n")
			for deadline := time.Now().Add(patience); !strings.Contains(out.String(), `"id":1,`); {
				if time.Now().After(deadline) {
					t.Fatal("initialize not answered")
				}
				time.Sleep(5 * time.Millisecond)
			}
			io.WriteString(pw, strings.Join(lines[1:], "\n")+"\n")
			pw.Close()
			if err := wait(t, errc, "ServeStdio to return"); err != nil {
				t.Fatal(err)
			}
			var arrays [][]json.RawMessage
			singles := map[string]bool{}
			for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				if strings.HasPrefix(line, "[") {
					var a []json.RawMessage
					if err := json.Unmarshal([]byte(line), &a); err != nil {
						t.Fatalf("batch response %s: %v", line, err)
					}
					arrays = append(arrays, a)
					continue
				}
				var m struct {
					ID    json.RawMessage `json:"id"`
					Error *struct {
						Code    int64  `json:"code"`
						Message string `json:"message"`
					} `json:"error"`
				}
				json.Unmarshal([]byte(line), &m)
				singles[string(m.ID)] = true
				if !tc.batches && m.Error != nil && m.Error.Code == -32600 && !strings.Contains(m.Error.Message, tc.version) &&
					!strings.Contains(m.Error.Message, "empty") {
					t.Errorf("refusal does not name the version: %s", line)
				}
			}
			if !singles["1"] || !singles["4"] {
				t.Errorf("initialize or ping not answered:\n%s", out.String())
			}
			if !tc.batches {
				if len(arrays) != 0 {
					t.Errorf("a %s session got a batch answered:\n%s", tc.version, out.String())
				}
				return
			}
			// The batch of requests is one array of three responses; the
			// batch of a notification alone gets none; [] is an error.
			if len(arrays) != 1 || len(arrays[0]) != 3 {
				t.Fatalf("batch responses %v, want one array of 3:\n%s", arrays, out.String())
			}
			ids := map[string]bool{}
			for _, r := range arrays[0] {
				var m struct {
					ID json.RawMessage `json:"id"`
				}
				json.Unmarshal(r, &m)
				ids[string(m.ID)] = true
			}
			if !ids["2"] || !ids[`"three"`] || !ids["null"] {
				t.Errorf("batch answered ids %v, want 2, \"three\" and null (the malformed one)", ids)
			}
			if !singles["null"] {
				t.Errorf("the empty batch was not answered with an error:\n%s", out.String())
			}
		})
	}
}

// A 2026-07-28 client keeps a subscriptions/listen request open for
// notifications. When its input ends, serve exits at once: the listen
// request is never answered by itself, and waiting for it held the exit
// for 30 seconds.
func TestStdioExitsWithAListenStreamOpen(t *testing.T) {
	st := openStore(t)
	putCurrent(t, st, shopSnapshot(t))
	srv := newServer(t, st)
	clientR, serverW := io.Pipe()
	serverR, clientW := io.Pipe()
	errc := make(chan error, 1)
	go func() { errc <- ServeStdio(context.Background(), srv, serverR, serverW) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {},
	})
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: clientR, Writer: clientW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Skipf("the client negotiated %s, which has no subscriptions/listen", v)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "release_info", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	clientW.Close() // the end of serve's input
	if err := wait(t, errc, "ServeStdio to return"); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("serve took %v to exit with a listen stream open", d)
	}
	clientR.Close()
}
