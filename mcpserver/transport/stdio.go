package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/mcpserver"
)

// drainTimeout bounds how long, after its input ends, ServeStdio waits for
// the answers to requests it has already read.
const drainTimeout = 30 * time.Second

// ServeStdio serves srv to one client that speaks newline-delimited
// JSON-RPC on r and w (the process's stdin and stdout) until r ends or ctx
// is done.
//
// go-sdk alone stops at once when its input ends and drops the answers of
// requests still in flight; a client that writes its requests and closes
// its end (a script, `... | hubsnap serve`) would get nothing. ServeStdio
// counts the requests it reads and the responses it writes, and lets the
// session end only once every request read has been answered (or after
// drainTimeout). When ctx ends, calls in flight are cancelled and
// ServeStdio returns promptly.
func ServeStdio(ctx context.Context, srv *mcpserver.Server, r io.Reader, w io.Writer) error {
	out := &responseCounter{w: w}
	pr, pw := io.Pipe()
	in := &requestReader{src: r, dst: pw, out: out}
	go in.pump(ctx)
	t := &mcp.IOTransport{Reader: pr, Writer: nopCloser{out}}
	// Run waits for calls in flight when ctx ends; cancel them at once.
	defer context.AfterFunc(ctx, srv.Shutdown)()
	err := srv.MCP().Run(ctx, t)
	pr.Close()
	if ctx.Err() != nil {
		return nil // a signal asked us to stop: that is a clean exit
	}
	return err
}

// maxLine is the longest message accepted: MaxRequestBytes, as over HTTP
// (go-sdk's own limit, 16 MiB, let one tools/call grow the server by 200
// MiB).
const maxLine = mcpserver.MaxRequestBytes

// requestReader copies the client's messages to the transport, one line
// each. It answers itself what go-sdk would end the session on (a line that
// is not JSON, a batch, a message that is not JSON-RPC, an oversized line),
// so no input can stop the server. It counts the requests it passes on and,
// when the client's input ends, waits for their answers before passing the
// end on.
type requestReader struct {
	src io.Reader
	dst *io.PipeWriter
	out *responseCounter
}

func (q *requestReader) pump(ctx context.Context) {
	br := bufio.NewReaderSize(q.src, 64<<10)
	requests := 0
	for {
		line, over, err := readLine(br, maxLine)
		msg, problem := bytes.TrimSpace(line), ""
		if len(msg) > 0 {
			problem = mcpserver.ShapeProblem(msg)
		}
		switch {
		case over != nil:
			// Answered with the request's id when it can be found, so that
			// the client's call ends now rather than at its timeout.
			q.out.reply(over.id(), invalidRequest(fmt.Sprintf(
				"message over %d bytes, the most hubsnap reads: arguments are bounded (see the tools' input schemas)", maxLine)))
		case len(msg) == 0:
		case problem != "":
			// What go-sdk would decode into too much, or not at all (a
			// batch too): invalid, answered with its id when it can be
			// found.
			q.out.reply(idOf(msg), invalidRequest(problem))
		case msg[0] == '[' && json.Valid(msg):
			n, ok := q.batch(msg)
			if !ok {
				return // the session is gone
			}
			requests += n
		default:
			c := check(msg)
			if c.err != nil {
				q.out.reply(c.id, c.err)
				break
			}
			if c.answered() {
				requests++
			}
			if c.method == "initialize" {
				q.out.expectInitialize(c.id)
			}
			if _, werr := q.dst.Write(append(msg, '\n')); werr != nil {
				return // the session is gone
			}
		}
		if err != nil {
			q.out.wait(ctx, requests, drainTimeout)
			if errors.Is(err, io.EOF) {
				err = nil
			}
			q.dst.CloseWithError(err)
			return
		}
	}
}

// readLine reads one line of at most max bytes. A longer line is read to
// its end and dropped: over keeps its first and last bytes, where its id
// is, and line is nil.
func readLine(br *bufio.Reader, max int) (line []byte, over *oversized, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case over != nil:
			over.add(chunk)
		case len(line)+len(chunk) > max:
			over = &oversized{}
			over.add(line)
			over.add(chunk)
			line = nil
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, over, err
	}
}

// checked is what check found of a message.
type checked struct {
	request bool            // a call with an id: a response will come
	method  string          // of a request or a notification
	id      json.RawMessage // of a request, or to answer an invalid one with
	err     *jsonrpc.Error  // the answer to a message go-sdk cannot take
}

// answered reports whether the message is a request whose response the
// end of input waits for. A 2026-07-28 subscriptions/listen stays open
// until it is cancelled: its response never comes by itself, so waiting
// for it would hold the exit for drainTimeout.
func (c checked) answered() bool {
	return c.request && c.method != "subscriptions/listen"
}

// check decodes one message (a line, or an element of a batch).
func check(msg []byte) checked {
	switch {
	case !json.Valid(msg):
		return checked{err: notJSON()}
	case msg[0] == '[':
		return checked{err: invalidRequest("JSON-RPC batches are not supported")}
	case msg[0] != '{':
		return checked{err: invalidRequest("a JSON-RPC message must be an object")}
	}
	m, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		var ids struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(msg, &ids)
		id := ids.ID
		if len(id) == 0 || (id[0] != '"' && (id[0] < '0' || id[0] > '9') && id[0] != '-') {
			id = nil // only a string or a number can be echoed back
		}
		return checked{id: id, err: invalidRequest("invalid request: " + err.Error())}
	}
	req, ok := m.(*jsonrpc.Request)
	if !ok {
		return checked{}
	}
	c := checked{request: req.IsCall(), method: req.Method}
	if c.request {
		id, _ := members(msg, nil)
		c.id = json.RawMessage(id)
	}
	return c
}

// responseCounter passes the transport's output through, a line at a
// time, and counts the responses (messages with an id and no method) in
// it. It learns the protocol version the session negotiated from the
// response to initialize, and holds the responses to a batch's requests
// until it can write them together (see stdio_batch.go).
type responseCounter struct {
	w       io.Writer
	mu      sync.Mutex
	partial []byte
	n       int
	changed chan struct{} // closed and replaced when n grows

	initID  string // the initialize request's id, until it is answered
	version string // the protocol version negotiated; "" before
	batches map[string]*batchGroup
}

func (c *responseCounter) Write(p []byte) (int, error) {
	c.mu.Lock() // held across the write, so reply cannot interleave
	defer c.mu.Unlock()
	c.partial = append(c.partial, p...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			break
		}
		line := c.partial[:i+1]
		c.partial = c.partial[i+1:]
		id, response := responseID(line[:i])
		if response {
			c.n++
			if c.changed != nil {
				close(c.changed)
				c.changed = nil
			}
			if id == c.initID && c.initID != "" {
				c.version, c.initID = negotiated(line), ""
			}
			if g := c.batches[id]; g != nil {
				c.collect(id, g, line[:i])
				continue
			}
		}
		if _, err := c.w.Write(line); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// reply writes an error response of the reader's own (not counted: it
// answers no request the transport saw).
func (c *responseCounter) reply(id json.RawMessage, e *jsonrpc.Error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.Write(append(errorResponse(id, e), '\n'))
}

// responseID returns the id of a response (a message with an id and no
// method), as its JSON text. It stops at the message's result or error
// once it has the id: go-sdk writes "id" before them, so the answer itself
// (kilobytes, a table's whole detail) is not scanned again here.
func responseID(line []byte) (string, bool) {
	id, ok := members(line, func(name string, id jsontext.Value) (stop, response bool) {
		switch name {
		case "method":
			return true, false
		case "result", "error":
			return len(id) > 0, true
		}
		return false, true
	})
	if !ok || len(id) == 0 {
		return "", false
	}
	return string(id), true
}

// members reads the members of the JSON object msg in order and returns
// the value of its "id" (nil when it has none) as it is written. Before
// each other member, at(name, id so far), when not nil, may stop the
// reading (ok is then its second result); ok is false when msg is not one
// JSON object whose members can be read.
func members(msg []byte, at func(name string, id jsontext.Value) (stop, ok bool)) (id jsontext.Value, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(msg))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		if name.String() == "id" {
			v, err := dec.ReadValue()
			if err != nil {
				return nil, false
			}
			id = bytes.Clone(v) // v is the decoder's buffer, valid until its next read
			continue
		}
		if at != nil {
			if stop, ok := at(name.String(), id); stop {
				return id, ok
			}
		}
		if dec.SkipValue() != nil {
			return nil, false
		}
	}
	_, err := dec.ReadToken()
	return id, err == nil
}

// wait returns once n responses were written, ctx is done or timeout passed.
func (c *responseCounter) wait(ctx context.Context, n int, timeout time.Duration) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		if c.n >= n {
			c.mu.Unlock()
			return
		}
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		}
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
