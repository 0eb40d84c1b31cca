package transport

import (
	"encoding/json"
	"strings"
	"testing"
)

// responseIDByUnmarshal is responseID as it was, decoding the whole line:
// the reference the early-stopping reader must agree with.
func responseIDByUnmarshal(line []byte) (string, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "" || len(m.ID) == 0 {
		return "", false
	}
	return string(m.ID), true
}

// bigResponse is a response to tools/call as go-sdk writes it, its answer
// n bytes of JSON twice (text and structured content).
func bigResponse(id string, n int) string {
	answer := `{"name":"t","columns":[` + strings.Repeat(`{"name":"c","type":"int","nullable":false},`, n/44) + `{"name":"z","type":"int"}]}`
	text, _ := json.Marshal(answer)
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":` + string(text) +
		`}],"structuredContent":` + answer + `}}`
}

// The id of a response is found as a whole decode finds it, for go-sdk's
// member order and any other, and nothing that is not a response (a
// request, a notification, no id, not an object) is taken for one.
func TestResponseID(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":"a\"b","result":{"x":[1,2]}}`,
		`{"jsonrpc":"2.0","result":{},"id":7}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"m"},"id":-3}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":12, "result" : {"a":"}"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}`,
		`{"jsonrpc":"2.0","method":"x","id":9}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{}`,
		`[]`,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`,
		`"id"`,
		``,
		bigResponse("42", 4700),
		bigResponse(`"call-7"`, 100),
	} {
		gotID, got := responseID([]byte(line))
		wantID, want := responseIDByUnmarshal([]byte(line))
		if gotID != wantID || got != want {
			t.Errorf("responseID(%.60q) = %q, %v; want %q, %v", line, gotID, got, wantID, want)
		}
	}
	// The one difference, by design: what follows the result is not read,
	// so a line cut short there is still taken for a response. The lines
	// are go-sdk's own encoding of whole messages.
	if id, ok := responseID([]byte(`{"jsonrpc":"2.0","id":1,"result":`)); id != "1" || !ok {
		t.Errorf("responseID of a line cut after its id = %q, %v; want \"1\", true", id, ok)
	}
}

// BenchmarkResponseID reads the id of a 4.7 KB answer's response (9.6 KB
// on the wire), as the stdio transport does for every response it
// writes: "early" is responseID, "unmarshal" the whole decode it replaced.
func BenchmarkResponseID(b *testing.B) {
	line := []byte(bigResponse("42", 4700))
	for name, f := range map[string]func([]byte) (string, bool){"early": responseID, "unmarshal": responseIDByUnmarshal} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if id, ok := f(line); !ok || id != "42" {
					b.Fatal(id, ok)
				}
			}
		})
	}
}

// BenchmarkCheckRequest checks a tools/call request line as the stdio
// transport does before go-sdk reads it.
func BenchmarkCheckRequest(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"schema_get_table","arguments":{"table":"billing_invoices"},"_meta":{"progressToken":17}}}`)
	for b.Loop() {
		if c := check(msg); c.err != nil || !c.request || string(c.id) != "17" {
			b.Fatal(c)
		}
	}
}
