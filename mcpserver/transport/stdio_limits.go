package transport

import (
	"bytes"
	"encoding/json"
	"regexp"
)

// Messages that go-sdk is not given: longer than maxLine (stdio; over
// HTTP the body limit answers 413), or of a shape it would decode into too
// much (mcpserver.ShapeProblem, both transports). They are answered
// here, with the request's id when it can be found in the first or last bytes (where
// JSON-RPC clients put it), so that the client's call fails at once
// instead of waiting for an answer that never comes.

// idWindow is how many bytes of each end of an oversized message are
// kept to find its id in.
const idWindow = 4 << 10

// oversized keeps the ends of a message that is not passed on.
type oversized struct {
	head, tail []byte
}

func (o *oversized) add(chunk []byte) {
	if n := idWindow - len(o.head); n > 0 {
		o.head = append(o.head, chunk[:min(n, len(chunk))]...)
	}
	o.tail = append(o.tail, chunk...)
	if len(o.tail) > 2*idWindow {
		o.tail = append(o.tail[:0], o.tail[len(o.tail)-idWindow:]...)
	}
}

// id returns the message's id as its JSON text, or nil when it cannot be
// found: a top-level "id" read from the start (as in {"jsonrpc":"2.0",
// "id":7,...}) or that ends it (as in {...,"id":7}).
func (o *oversized) id() json.RawMessage {
	if id := headID(o.head); id != nil {
		return id
	}
	if m := tailID.FindSubmatch(bytes.TrimSpace(o.tail)); m != nil {
		return append(json.RawMessage(nil), m[1]...)
	}
	return nil
}

// idOf finds the id of a message that is not passed on, as id does.
func idOf(msg []byte) json.RawMessage {
	o := &oversized{}
	o.add(msg)
	return o.id()
}

// tailID finds an id that is the last member of the message: a number or
// a string, then the closing brace of the message.
var tailID = regexp.MustCompile(`[{,]\s*"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*}$`)

// headID reads the members of the message's object from its start until
// it finds "id", with a number or a string for its value; the first bytes
// hold it when the client writes the id before the params.
func headID(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key == "id" {
			var id json.RawMessage
			if dec.Decode(&id) != nil || len(id) == 0 || (id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
				return nil
			}
			return id
		}
		var skip json.RawMessage // the value of another member (it must end within the head)
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
}
