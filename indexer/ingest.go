package indexer

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
	"github.com/hubsnap/hubsnap/store/atomicfile"
)

// Ingesting a release: the snapshot document is decoded as a stream, one
// table or logic at a time. The indexer drives: it begins a release
// transaction of the store (which holds the write lock), hands it the
// decoder, teed into the new release file and with the findings of the
// schema rules about each table (ingestParts), for the store to pull every
// part, judges the foreign keys' types once every row is written (the
// lint's KeyFindings, from what the transaction reads back), renames the
// release file into place while the transaction still holds the lock, and
// commits, or rolls back and undoes the renames. Nothing holds the whole
// release: memory stays near the decoder's per-release state, whatever
// the release's size.

// ingest says what to do with a document.
type ingest struct {
	// origin is where the release comes from; its digest may be set once
	// the document is read (digest).
	origin snapshot.Origin
	// digest, when set, gives the document's digest once it is read whole.
	digest func() string
	// check, when set, refuses a release other than the one expected, or
	// stops with errUnchanged when the cache holds it already; digest is
	// the document's (origin's) digest.
	check func(r snapshot.Release, digest string) error
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
// release's description, or a *snapshot.Error when the document is not a
// valid snapshot; on any failure the cache is as it was. The caller holds
// the write lock.
func (c *Cache) ingest(ctx context.Context, src io.Reader, in ingest) (store.ReleaseInfo, error) {
	parts := &ingestParts{d: snapshot.NewDecoder(src), lint: lint.New()}
	defer parts.d.Close()
	if in.tempDir != "" {
		file, err := newReleaseFile(in.tempDir)
		if err != nil {
			return store.ReleaseInfo{}, fmt.Errorf("write release file: %w", err)
		}
		defer file.discard()
		parts.file = file
	}
	tx, err := c.store.BeginRelease(ctx, c.logics.analyzer)
	if err != nil {
		return store.ReleaseInfo{}, err
	}
	defer tx.Rollback()
	if err := tx.Index(parts); err != nil {
		return store.ReleaseInfo{}, err
	}
	rel, origin, state, err := parts.finish(in)
	if err != nil {
		return store.ReleaseInfo{}, err
	}
	if err := tx.Finish(origin, state, in.makeCurrent); err != nil {
		return store.ReleaseInfo{}, err
	}
	if err := parts.lint.KeyFindings(tx, tx.Findings); err != nil {
		return store.ReleaseInfo{}, err
	}
	var placed func(committed bool)
	if parts.file != nil {
		if placed, err = c.place(rel, parts.file, in.makeCurrent); err != nil {
			return store.ReleaseInfo{}, err
		}
	}
	err = tx.Commit()
	if placed != nil {
		placed(err == nil)
	}
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

// ingestParts is what an ingest hands the store to index: the decoder's
// parts, each written to the new release file (when one is written) as it
// passes, each table judged by the schema rules, the release's name and
// origin noted.
type ingestParts struct {
	d        *snapshot.Decoder
	file     *releaseFile // nil: an existing release file is indexed
	lint     *lint.Linter
	findings []snapshot.Finding // about the table the decoder gave last
	release  *snapshot.Release
	origin   *snapshot.Origin
	err      error // of the release file
}

// Next pulls the next part from the decoder.
func (p *ingestParts) Next() bool {
	if p.err != nil || !p.d.Next() {
		return false
	}
	part := p.d.Part()
	p.findings = nil
	switch part.Kind {
	case snapshot.KindTable:
		p.findings = p.lint.Table(part.Table)
	case snapshot.KindRelease:
		r := part.Release // a copy: the address of part would move every part to the heap
		p.release = &r
	case snapshot.KindOrigin:
		o := part.Origin
		p.origin = &o
	}
	if p.file != nil {
		if err := p.file.enc.Encode(part); err != nil {
			p.err = fmt.Errorf("write release file: %w", err)
			return false
		}
	}
	return true
}

// Part returns the part Next pulled.
func (p *ingestParts) Part() snapshot.Part { return p.d.Part() }

// Findings returns the schema rules' findings about the table Next
// pulled, if it pulled one.
func (p *ingestParts) Findings() []snapshot.Finding { return p.findings }

// Err returns why the parts ended early: the release file's error, the
// decoder's, or nil.
func (p *ingestParts) Err() error {
	if p.err != nil {
		return p.err
	}
	return p.d.Err()
}

// finish checks the release once every part is in, and says where it came
// from and what its release file is: the new file's, finished here, or
// the existing one's.
func (p *ingestParts) finish(in ingest) (snapshot.Release, snapshot.Origin, store.FileState, error) {
	if p.release == nil {
		return snapshot.Release{}, snapshot.Origin{}, store.FileState{}, &snapshot.Error{Problems: []string{"release: missing"}}
	}
	rel, origin := *p.release, in.origin
	if in.digest != nil {
		origin.Digest = in.digest()
	}
	if in.check != nil {
		if err := in.check(rel, origin.Digest); err != nil {
			return rel, origin, store.FileState{}, err
		}
	}
	if p.file == nil { // an existing release file says where it came from
		if p.origin != nil {
			origin = *p.origin
		}
		return rel, origin, in.file, nil
	}
	state, err := p.file.finish(origin)
	if err != nil {
		return rel, origin, state, fmt.Errorf("write release %s: %w", rel.ID, err)
	}
	return rel, origin, state, nil
}

// place renames the new release file into place, and the environment's
// .current pointer with it when makeCurrent, while the caller's release
// transaction holds the write lock. The caller then calls placed with
// whether the transaction committed: when not, placed puts back what was
// there. Nothing is written through a link (links.go).
func (c *Cache) place(rel snapshot.Release, file *releaseFile, makeCurrent bool) (placed func(committed bool), err error) {
	var undo []func(bool)
	placed = func(ok bool) {
		for _, f := range undo {
			if f != nil {
				f(ok)
			}
		}
		atomicfile.SyncDir(c.projectDir(rel.Project))
	}
	if err := c.realDirs(rel.Project); err != nil {
		return nil, err
	}
	for _, ext := range releaseForms {
		if err := realFile(c.releaseFile(rel.Project, rel.ID, ext)); err != nil {
			return nil, err
		}
	}
	dir, removeDirs, err := makeDirs(c.projectDir(rel.Project))
	if err != nil {
		return nil, fmt.Errorf("create release folder: %w", err)
	}
	undo = append(undo, func(ok bool) {
		if !ok {
			removeDirs()
		}
	})
	f, err := atomicfile.Replace(file.path, c.releaseFile(rel.Project, rel.ID, file.ext()))
	if err != nil {
		placed(false)
		return nil, fmt.Errorf("write release %s: %w", rel.ID, err)
	}
	undo = append([]func(bool){f}, undo...) // put the file back before removing its folder
	// The release's file of the other form, if any, goes with the commit:
	// a release has one file (release_codec.go).
	other := packedExt
	if file.ext() == packedExt {
		other = releaseExt
	}
	if f, err = atomicfile.Remove(c.releaseFile(rel.Project, rel.ID, other)); err != nil {
		placed(false)
		return nil, fmt.Errorf("write release %s: %w", rel.ID, err)
	}
	undo = append([]func(bool){f}, undo...)
	if makeCurrent {
		f, err := c.writeCurrent(rel.Project, rel.Environment, rel.ID)
		if err != nil {
			placed(false)
			return nil, err
		}
		undo = append([]func(bool){f}, undo...)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		placed(false)
		return nil, fmt.Errorf("sync release folder: %w", err)
	}
	return placed, nil
}
