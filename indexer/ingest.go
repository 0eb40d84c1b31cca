package indexer

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// Ingesting a release: the snapshot document is decoded as a stream, one
// table or logic at a time, and each part goes at once into the index (a
// store.ReleaseWriter, all in one transaction) and, for a new release, into
// its sanitized release file, written beside and renamed into place just
// before the transaction commits. Nothing holds the whole release: memory
// stays near the decoder's per-release state, whatever the release's size.

// ingest says what to do with a document.
type ingest struct {
	// origin is where the release comes from; its digest may be set once
	// the document is read (digest).
	origin store.Origin
	// digest, when set, gives the document's digest once it is read whole.
	digest func() string
	// check, when set, refuses a release other than the one expected, or
	// stops with errUnchanged when the cache holds it already; digest is
	// the document's (origin's) digest.
	check func(r store.Release, digest string) error
	// tempDir is where the new release file is written before it is
	// renamed into {cache}/releases/{project}; "" indexes an existing
	// release file (file) instead of writing one.
	tempDir string
	file    store.FileState
	// makeCurrent makes the release current for its environment.
	makeCurrent bool
	// optimize merges the search index and refreshes the statistics
	// afterwards; a caller indexing several releases does it once.
	optimize bool
}

// errUnchanged stops an ingest whose document turns out to be the release
// the cache already holds (see Import).
var errUnchanged = errors.New("the release is cached already")

// ingest decodes src and writes it as one release. It returns the
// release's description, or a *SnapshotError when the document is not a
// valid snapshot; on any failure the cache is as it was. The caller holds
// the write lock.
func (c *Cache) ingest(ctx context.Context, src io.Reader, in ingest) (store.ReleaseInfo, error) {
	var (
		rel  store.Release
		file *releaseWriter
		err  error
	)
	if in.tempDir != "" {
		if file, err = newReleaseWriter(in.tempDir); err != nil {
			return store.ReleaseInfo{}, fmt.Errorf("write release file: %w", err)
		}
		defer file.discard()
	}
	var finishes []func(bool)
	hook := func() (func(bool), error) {
		if file == nil {
			return nil, nil
		}
		finish := func(ok bool) {
			for _, f := range finishes {
				if f != nil {
					f(ok)
				}
			}
			atomicfile.SyncDir(c.projectDir(rel.Project))
		}
		// Nothing is written through a link (links.go).
		if err := c.realDirs(rel.Project); err != nil {
			return nil, err
		}
		if err := realFile(c.releaseFile(rel.Project, rel.ID)); err != nil {
			return nil, err
		}
		dir, undo, err := makeDirs(c.projectDir(rel.Project))
		if err != nil {
			return nil, fmt.Errorf("create release folder: %w", err)
		}
		finishes = append(finishes, func(ok bool) {
			if !ok {
				undo()
			}
		})
		f, err := atomicfile.Replace(file.path, c.releaseFile(rel.Project, rel.ID))
		if err != nil {
			finish(false)
			return nil, fmt.Errorf("write release %s: %w", rel.ID, err)
		}
		finishes = append([]func(bool){f}, finishes...) // put the file back before removing its folder
		if in.makeCurrent {
			f, err := c.writeCurrent(rel.Project, rel.Environment, rel.ID)
			if err != nil {
				finish(false)
				return nil, err
			}
			finishes = append([]func(bool){f}, finishes...)
		}
		if err := atomicfile.SyncDir(dir); err != nil {
			finish(false)
			return nil, fmt.Errorf("sync release folder: %w", err)
		}
		return finish, nil
	}
	err = c.store.WriteRelease(ctx, store.WriteOptions{MakeCurrent: in.makeCurrent, Hook: hook,
		Analyzer: c.logics.analyzer}, func(w *store.ReleaseWriter) error {
		h := &ingester{w: w, file: file}
		if err := DecodeStream(src, h); err != nil {
			return err
		}
		if h.release == nil {
			return problem("release: missing")
		}
		rel = *h.release
		origin := in.origin
		if in.digest != nil {
			origin.Digest = in.digest()
		}
		if in.check != nil {
			if err := in.check(rel, origin.Digest); err != nil {
				return err
			}
		}
		if file == nil { // an existing release file says where it came from
			if h.origin != nil {
				origin = *h.origin
			}
			w.File(in.file)
		} else {
			state, err := file.finish(origin)
			if err != nil {
				return fmt.Errorf("write release %s: %w", rel.ID, err)
			}
			w.File(state)
		}
		w.Release(rel, origin)
		return nil
	})
	if err != nil {
		return store.ReleaseInfo{}, err
	}
	c.logics.written()
	if in.optimize {
		if err := c.store.Optimize(ctx); err != nil {
			c.log.Debug("optimize index", "err", err)
		}
	}
	return c.store.ReleaseInfo(ctx, store.ReleaseKey{Project: rel.Project, ID: rel.ID})
}

// ingester is the Handler of an ingest: it passes each part on to the
// index and, when one is being written, to the release file.
type ingester struct {
	w       *store.ReleaseWriter
	file    *releaseWriter
	release *store.Release
	origin  *store.Origin
}

func (h *ingester) Release(r store.Release) error {
	h.release = &r
	return h.file.member("release", docRelease(r))
}

func (h *ingester) Origin(o store.Origin) error {
	h.origin = &o
	return nil
}

func (h *ingester) Connection(_ int, c store.Connection) error {
	if err := h.w.Connection(c); err != nil {
		return err
	}
	return h.file.item("connections", docConnection{Name: c.Name, Engine: c.Engine})
}

func (h *ingester) Table(_ int, t *store.Table) error {
	if err := h.w.Table(t); err != nil {
		return err
	}
	return h.file.item("tables", docTableOf(t))
}

func (h *ingester) Logic(_ int, l *store.Logic) error {
	if err := h.w.Logic(l); err != nil {
		return err
	}
	return h.file.item("logics", docLogicOf(l))
}

// releaseWriter writes a release file as its parts arrive, in the order
// they come, hashing what it writes. A nil releaseWriter writes nothing.
type releaseWriter struct {
	path    string
	f       *os.File
	bw      *bufio.Writer
	enc     *json.Encoder
	h       hash.Hash
	n       int64
	open    string          // the top-level array being written, "" for none
	written map[string]bool // the top-level members written
	done    bool
}

func newReleaseWriter(dir string) (*releaseWriter, error) {
	f, err := atomicfile.CreateTemp(filepath.Join(dir, "release"+releaseExt))
	if err != nil {
		return nil, err
	}
	rw := &releaseWriter{path: f.Name(), f: f, h: sha256.New(), written: map[string]bool{}}
	rw.bw = bufio.NewWriterSize(io.MultiWriter(f, rw.h, (*counter)(&rw.n)), 64<<10)
	rw.enc = json.NewEncoder(rw.bw)
	rw.enc.SetEscapeHTML(false)
	fmt.Fprintf(rw.bw, `{"formatVersion":%d`, FormatVersion)
	return rw, nil
}

// counter counts the bytes written to it.
type counter int64

func (c *counter) Write(p []byte) (int, error) { *c += counter(len(p)); return len(p), nil }

// close ends the top-level array being written.
func (rw *releaseWriter) close() {
	if rw.open != "" {
		rw.bw.WriteByte(']')
		rw.open = ""
	}
}

// member writes a top-level member.
func (rw *releaseWriter) member(key string, v any) error {
	if rw == nil {
		return nil
	}
	rw.close()
	fmt.Fprintf(rw.bw, `,%q:`, key)
	rw.written[key] = true
	return rw.enc.Encode(v) // its newline is white space between members
}

// item writes an element of the top-level array key.
func (rw *releaseWriter) item(key string, v any) error {
	if rw == nil {
		return nil
	}
	if rw.open != key {
		rw.close()
		fmt.Fprintf(rw.bw, `,%q:[`, key)
		rw.open, rw.written[key] = key, true
	} else {
		rw.bw.WriteByte(',')
	}
	return rw.enc.Encode(v)
}

// finish writes the lists that had no element and the origin, and syncs
// and closes the file. It returns what the index records of the file.
func (rw *releaseWriter) finish(o store.Origin) (store.FileState, error) {
	rw.close()
	for _, key := range []string{"connections", "tables", "logics"} {
		if !rw.written[key] {
			fmt.Fprintf(rw.bw, `,%q:[]`, key)
		}
	}
	if err := rw.member("origin", docOrigin(o)); err != nil {
		return store.FileState{}, err
	}
	rw.bw.WriteString("}\n")
	err := rw.bw.Flush()
	if err == nil {
		err = rw.f.Sync()
	}
	if cerr := rw.f.Close(); err == nil {
		err = cerr
	}
	rw.done = true
	if err != nil {
		return store.FileState{}, err
	}
	info, err := os.Stat(rw.path)
	if err != nil {
		return store.FileState{}, err
	}
	return store.FileState{Digest: "sha256:" + hex.EncodeToString(rw.h.Sum(nil)), Size: rw.n,
		MTime: info.ModTime().UnixNano()}, nil
}

// discard removes the file unless it was renamed into place.
func (rw *releaseWriter) discard() {
	if !rw.done {
		rw.f.Close()
	}
	os.Remove(rw.path) // fails harmlessly once renamed
}
