package transport

import (
	"bytes"
	"io"
	"net/http"
	"testing"
)

// BenchmarkHTTPCallWithToken: one ping, the cheapest request, in a
// session over HTTP with an issued token, from the request to the answer
// read: what the token check (a look at the token file's stat per
// request, keeper.go) adds to a whole request.
func BenchmarkHTTPCallWithToken(b *testing.B) {
	env := startHTTP(b, HTTPOptions{}, tokenSpec{"bench", []string{"*"}})
	secret := env.secrets["bench"]
	sid := env.initialize(b, secret)
	body := []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	b.Cleanup(client.CloseIdleConnections)
	call := func(b *testing.B) {
		req, _ := http.NewRequest(http.MethodPost, env.url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	for b.Loop() {
		call(b)
	}
}
