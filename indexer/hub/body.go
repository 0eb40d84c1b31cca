package hub

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// readError is a failure while reading a response body.
type readError struct {
	msg       string
	transient bool // the connection broke: worth another try
}

func (e *readError) Error() string { return e.msg }

// copyBody copies a response body to w, decoding gzip, within limit bytes
// (after decoding), and returns how many bytes it wrote. A failure to read
// is a *readError; a failure to write is returned as is.
func copyBody(w io.Writer, resp *http.Response, limit int64, progress func(done, total int64)) (int64, error) {
	if resp.ContentLength > limit {
		return 0, &readError{msg: fmt.Sprintf("the body is %s, over the %s limit", size(resp.ContentLength), size(limit))}
	}
	var r io.Reader = resp.Body
	if progress != nil {
		r = &progressReader{r: r, total: resp.ContentLength, fn: progress}
	}
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return 0, &readError{msg: fmt.Sprintf("the gzip body is corrupt: %v", err), transient: errors.Is(err, io.ErrUnexpectedEOF)}
		}
		defer zr.Close()
		r = zr
	default:
		return 0, &readError{msg: fmt.Sprintf("the hub sent an unsupported Content-Encoding %s", quote(enc))}
	}
	tw := &trackedWriter{w: w}
	n, err := io.Copy(tw, io.LimitReader(r, limit+1)) // one byte over tells the limit was passed
	switch {
	case n > limit:
		return n, &readError{msg: fmt.Sprintf("the body is over the %s limit", size(limit))}
	case err == nil:
		return n, nil
	case tw.err != nil:
		return n, tw.err
	case errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, new(flate.CorruptInputError)):
		return n, &readError{msg: fmt.Sprintf("the gzip body is corrupt: %v", err)}
	}
	return n, &readError{msg: fmt.Sprintf("the body was cut off after %s: %v", size(n), err), transient: true}
}

// trackedWriter remembers a write error, to tell it from a read error.
type trackedWriter struct {
	w   io.Writer
	err error
}

func (t *trackedWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err != nil {
		t.err = err
	}
	return n, err
}

// readBody reads a whole small response body, the listing, into memory.
func readBody(resp *http.Response, limit int64, progress func(done, total int64)) ([]byte, error) {
	var buf bytes.Buffer
	if total := resp.ContentLength; total > 0 && total <= limit {
		buf.Grow(int(total) + 1)
	}
	_, err := copyBody(&buf, resp, limit, progress)
	return buf.Bytes(), err
}

// saveBody streams a response body to a new temp file in dir, named after
// base, while hashing it. It returns the file, open (so locked, see
// atomicfile.CreateTemp) and back at its start, and the body's digest,
// "sha256:<hex>". On any failure no file is left.
func saveBody(resp *http.Response, dir, base string, limit int64, progress func(done, total int64)) (*os.File, string, error) {
	f, err := atomicfile.CreateTemp(filepath.Join(dir, base))
	if err != nil {
		return nil, "", fmt.Errorf("create the download file: %w", err)
	}
	h := sha256.New()
	_, err = copyBody(io.MultiWriter(f, h), resp, limit, progress)
	if re := (*readError)(nil); err != nil && !errors.As(err, &re) {
		err = fmt.Errorf("write the download file: %w", err)
	}
	if err == nil {
		if _, serr := f.Seek(0, io.SeekStart); serr != nil {
			err = fmt.Errorf("read the download file: %w", serr)
		}
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, "", err
	}
	return f, "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

type progressReader struct {
	r           io.Reader
	done, total int64
	fn          func(done, total int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	p.fn(p.done, p.total)
	return n, err
}

// size renders a byte count for people.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
