package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

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
	err := s.Run(ctx, t)
	pr.Close()
	if ctx.Err() != nil {
		s.Shutdown()
		return nil // a signal asked us to stop: that is a clean exit
	}
	return err
}

// maxCountedLine is the longest line checked for being a request; the
// transport refuses longer ones.
const maxCountedLine = mcp.DefaultMaxLineLength

// requestReader copies the client's lines to the transport, counting the
// requests (messages with an id and a method) among them. When the client's
// input ends, it waits for their answers before passing the end on.
type requestReader struct {
	src io.Reader
	dst *io.PipeWriter
	out *responseCounter
}

func (q *requestReader) pump(ctx context.Context) {
	br := bufio.NewReaderSize(q.src, 64<<10)
	requests := 0
	var line []byte // the line so far, up to maxCountedLine
	overflow := false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if _, werr := q.dst.Write(chunk); werr != nil {
				return // the session is gone
			}
			if len(line)+len(chunk) > maxCountedLine {
				overflow, line = true, line[:0]
			} else if !overflow {
				line = append(line, chunk...)
			}
			if chunk[len(chunk)-1] == '\n' {
				if !overflow && isRequest(line) {
					requests++
				}
				line, overflow = line[:0], false
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
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

// isRequest reports whether a JSON-RPC line is a request: it has an id and
// a method. Responses and notifications are not answered.
func isRequest(line []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &m) != nil {
		return false
	}
	return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
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
	n, err := c.w.Write(p)
	c.mu.Lock()
	defer c.mu.Unlock()
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
