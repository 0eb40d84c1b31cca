package transport

import (
	"bytes"
	"encoding/json"
)

// JSON-RPC batches over stdio. Protocol 2025-03-26 requires a server to
// take them; later versions removed them. go-sdk would end the session on
// one, so the reader answers a batch itself in a later version (-32600),
// and in a 2025-03-26 session passes its messages on one at a time and
// writes their responses together, as one JSON array, once all came.

// batchProtocol is the protocol version whose sessions may send batches.
const batchProtocol = "2025-03-26"

// batchGroup is a batch waiting for the responses to its requests.
type batchGroup struct {
	want      int               // responses still to come
	responses []json.RawMessage // in the order they came
}

// batch takes a batch line. It returns how many responses the end of
// input has to wait for, and false when the session is gone.
func (q *requestReader) batch(msg []byte) (int, bool) {
	version := q.out.protocol()
	if version != batchProtocol {
		why := "JSON-RPC batches are not supported"
		if version != "" {
			why += " in protocol version " + version + " (only in " + batchProtocol + ")"
		}
		q.out.reply(nil, invalidRequest(why))
		return 0, true
	}
	var elems []json.RawMessage
	if json.Unmarshal(msg, &elems) != nil || len(elems) == 0 {
		q.out.reply(nil, invalidRequest("invalid request: an empty batch"))
		return 0, true
	}
	g := &batchGroup{}
	var pass [][]byte
	var ids []string
	for _, e := range elems {
		e = bytes.TrimSpace(e)
		c := check(e)
		switch {
		case c.err != nil:
			g.responses = append(g.responses, errorResponse(c.id, c.err))
		case c.request:
			g.want++
			ids = append(ids, string(c.id))
			pass = append(pass, e)
		default:
			pass = append(pass, e)
		}
	}
	// The group is known before its first request reaches go-sdk.
	q.out.expectBatch(ids, g)
	for _, e := range pass {
		if _, err := q.dst.Write(append(e, '\n')); err != nil {
			return 0, false
		}
	}
	return len(ids), true
}

// protocol returns the protocol version the session negotiated, "" before
// initialize was answered.
func (c *responseCounter) protocol() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// expectInitialize notes the id of the initialize request, to learn the
// version negotiated from its response.
func (c *responseCounter) expectInitialize(id json.RawMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.initID = string(id)
}

// expectBatch holds the responses to ids for g; a group that expects none
// is written at once (its errors), or not at all (only notifications).
func (c *responseCounter) expectBatch(ids []string, g *batchGroup) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.batches == nil {
		c.batches = map[string]*batchGroup{}
	}
	for _, id := range ids {
		c.batches[id] = g
	}
	if g.want == 0 && len(g.responses) > 0 {
		c.writeBatch(g)
	}
}

// collect adds a response to its group, and writes the group when it is
// complete. Called with mu held.
func (c *responseCounter) collect(id string, g *batchGroup, response []byte) {
	delete(c.batches, id)
	g.responses = append(g.responses, append(json.RawMessage(nil), response...))
	if g.want--; g.want == 0 {
		c.writeBatch(g)
	}
}

// writeBatch writes a group's responses as one array. Called with mu held.
func (c *responseCounter) writeBatch(g *batchGroup) {
	b, _ := json.Marshal(g.responses)
	c.w.Write(append(b, '\n'))
}

// negotiated reads the protocol version from the response to initialize.
func negotiated(line []byte) string {
	var m struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	json.Unmarshal(line, &m)
	return m.Result.ProtocolVersion
}
