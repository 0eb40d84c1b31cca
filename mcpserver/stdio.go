package mcpserver

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

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTimeout bounds how long, after its input ends, ServeStdio waits for
// the answers to requests it has already read.
const drainTimeout = 30 * time.Second

// ServeStdio serves one client that speaks newline-delimited JSON-RPC on r
// and w (the process's stdin and stdout) until r ends or ctx is done.
//
// go-sdk alone stops at once when its input ends and drops the answers of
// requests still in flight; a client that writes its requests and closes
// its end (a script, `... | hubsnap serve`) would get nothing. ServeStdio
// counts the requests it reads and the responses it writes, and lets the
// session end only once every request read has been answered (or after
// drainTimeout). When ctx ends, calls in flight are cancelled and
// ServeStdio returns promptly.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	out := &responseCounter{w: w}
	pr, pw := io.Pipe()
	in := &requestReader{src: r, dst: pw, out: out}
	go in.pump(ctx)
	t := &mcp.IOTransport{Reader: pr, Writer: nopCloser{out}}
	// Run waits for calls in flight when ctx ends; cancel them at once.
	defer context.AfterFunc(ctx, s.Shutdown)()
	err := s.Run(ctx, t)
	pr.Close()
	if ctx.Err() != nil {
		return nil // a signal asked us to stop: that is a clean exit
	}
	return err
}

// maxLine is the longest message accepted, as go-sdk's own limit.
const maxLine = mcp.DefaultMaxLineLength

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
		line, tooLong, err := readLine(br, maxLine)
		switch msg := bytes.TrimSpace(line); {
		case tooLong:
			q.out.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message over %d bytes", maxLine))
		case len(msg) == 0:
		default:
			request, id, code, why := check(msg)
			if code != 0 {
				q.out.reply(id, code, why)
				break
			}
			if request {
				requests++
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
// its end and dropped, and tooLong is set.
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return line, tooLong, err
	}
}

// check decodes one line. It returns a JSON-RPC error code (and the id to
// answer, and why) for a line go-sdk cannot take, or code 0 and whether
// the line is a request: a call with an id, which will be answered.
func check(msg []byte) (request bool, id json.RawMessage, code int64, why string) {
	switch {
	case !json.Valid(msg):
		return false, nil, jsonrpc.CodeParseError, "parse error: the line is not JSON"
	case msg[0] == '[':
		return false, nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported"
	case msg[0] != '{':
		return false, nil, jsonrpc.CodeInvalidRequest, "a JSON-RPC message must be an object"
	}
	m, err := jsonrpc.DecodeMessage(msg)
	if err != nil {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal(msg, &m)
		if len(m.ID) == 0 || (m.ID[0] != '"' && (m.ID[0] < '0' || m.ID[0] > '9') && m.ID[0] != '-') {
			m.ID = nil // only a string or a number can be echoed back
		}
		return false, m.ID, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	req, ok := m.(*jsonrpc.Request)
	return ok && req.IsCall(), nil, 0, ""
}

// responseCounter passes the transport's output through and counts the
// responses (messages with an id and no method) in it.
type responseCounter struct {
	w       io.Writer
	mu      sync.Mutex
	partial []byte
	n       int
	changed chan struct{} // closed and replaced when n grows
}

func (c *responseCounter) Write(p []byte) (int, error) {
	c.mu.Lock() // held across the write, so reply cannot interleave
	defer c.mu.Unlock()
	n, err := c.w.Write(p)
	c.partial = append(c.partial, p[:n]...)
	for {
		i := bytes.IndexByte(c.partial, '\n')
		if i < 0 {
			break
		}
		if isResponse(c.partial[:i]) {
			c.n++
			if c.changed != nil {
				close(c.changed)
				c.changed = nil
			}
		}
		c.partial = c.partial[i+1:]
	}
	return n, err
}

// reply writes an error response of the reader's own (not counted: it
// answers no request the transport saw).
func (c *responseCounter) reply(id json.RawMessage, code int64, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.Write(append(b, '\n'))
}

func isResponse(line []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(line, &m) == nil && m.Method == "" && len(m.ID) > 0
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
