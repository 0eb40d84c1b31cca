package transport

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// FuzzStdioLine is run briefly by .ci/run:
//
//	go test -run '^$' -fuzz '^FuzzStdioLine$' -fuzztime 20s ./mcpserver/transport/

// stdioFuzzArguments are schema_search arguments worth starting from: a
// usual call, the bounds, and shapes the reader and go-sdk must refuse.
var stdioFuzzArguments = []string{
	`{"query":"user"}`,
	`{"query":"user","kinds":["table","column","logic","table"]}`,
	`{"query":"user","kinds":[[[[[[[[[]]]]]]]]]}`,
	`{"qu\u0065ry":"\ud83d\ude00\u00e9\"\\","limit":null}`,
	`{"query":"` + strings.Repeat("x", 300) + `"}`,
	`{"x":[{},{},[],1,true,null,"s"]}`,
	`[]`, `null`, `"posts"`, `7`, `{}`,
}

// FuzzStdioLine sends an arbitrary line between a session's start and a
// ping over stdio: the reader answers what it cannot pass on, every line
// written is JSON, the ping is answered and the input's end ends the
// session.
func FuzzStdioLine(f *testing.F) {
	for _, s := range stdioFuzzArguments {
		f.Add(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"schema_search","arguments":` + s + `}}`)
	}
	for _, s := range []string{`this is not json`, `[{"jsonrpc":"2.0","id":20,"method":"ping"}]`, `"x"`, `{"id":1}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":` + strings.Repeat("[", 1100) + strings.Repeat("]", 1100) + `}`} {
		f.Add(s)
	}
	st := openStore(f)
	putCurrent(f, st, shopSnapshot(f))
	srv := newServer(f, st)
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\r\n") {
			return // one line
		}
		in := strings.Join([]string{stdioLines[0], stdioLines[1], line, `{"jsonrpc":"2.0","id":"last","method":"ping"}`}, "\n") + "\n"
		var out lockedBuffer
		errc := make(chan error, 1)
		// A request that reuses an id in flight (initialize's 1) gets one
		// answer from go-sdk, and the end of input would wait its 30 s for
		// the other: stop sooner, the ping is answered by then.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		go func() { errc <- ServeStdio(ctx, srv, strings.NewReader(in), &out) }()
		select {
		case <-errc:
		case <-time.After(2 * patience):
			t.Fatalf("ServeStdio did not return after %.200q", line)
		}
		pinged := false
		for l := range strings.Lines(out.String()) {
			var r stdioResponse
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("after %.200q the output has a line that is not JSON: %.200q", line, l)
			}
			pinged = pinged || string(r.ID) == `"last"`
		}
		if !pinged {
			t.Fatalf("after %.200q the ping was not answered; output:\n%.2000s", line, out.String())
		}
	})
}
