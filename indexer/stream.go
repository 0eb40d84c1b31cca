package indexer

import (
	"errors"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/hubsnap/hubsnap/store"
)

// Handler receives the parts of a snapshot document from DecodeStream, each
// as soon as it is decoded, checked, defaulted and sanitized. Calls follow
// the order of the document, whose top-level members may come in any
// order: a handler must not count on Release coming first. An empty list
// is always nil. A handler error stops decoding and DecodeStream returns it
// as is.
type Handler interface {
	// Release receives the "release" object.
	Release(r store.Release) error
	// Origin receives the "origin" object, which only release files written
	// by hubsnap carry.
	Origin(o store.Origin) error
	// Connection receives connections[i].
	Connection(i int, c store.Connection) error
	// Table receives tables[i]. The decoder reuses t and its lists once
	// Table returns: a handler copies what it keeps.
	Table(i int, t *store.Table) error
	// Logic receives logics[i], reused like a table.
	Logic(i int, l *store.Logic) error
}

// Bounds of the snapshot format (docs/design.md, "Fields, defaults and
// bounds"), in bytes of UTF-8 text or in items. The format does not bound a column's or a parameter's type, a
// connection's engine, a foreign key's onDelete, the release's createdAt,
// the origin's fields, or an enum value: they are held to the bound of a
// name (1 KiB, no control characters), since no field should be unbounded.
// Nor does it bound how many foreign keys or indexes a table has, how many
// parameters a logic has, how many columns a key or an index lists, how
// many roles a logic names, or how many connections a release has: each is
// held to 4,096, the bound on columns in a table.
const (
	maxName     = 1 << 10
	maxComment  = 16 << 10 // a table's or a column's comment, a logic's description
	maxDefault  = 4 << 10
	maxSQL      = 48 << 10
	maxEnum     = 1000
	maxColumns  = 4096
	maxList     = 4096      // the lists the format does not bound, above
	maxTopLevel = 1_000_000 // tables, or logics, in a release
)

// DecodeStream reads a snapshot document from r token by token and hands
// its parts to h as they come, never holding more than one table or logic
// (and, per release, a compact record of the tables' and columns' names
// for the checks that span tables), nor any token over 1 MiB. A part that
// breaks a rule of the format is not handed over, and once a problem is
// found h is not called again: decoding goes on only to report more
// problems. So Release is not called after a bad formatVersion, but a
// formatVersion that comes after the release, or none, is only judged when
// it is read, or at the end. The problems come back as a *SnapshotError
// once the document ends (a document that cannot be read further ends
// there): the caller then undoes whatever h did. A read error of r is
// returned as is.
func DecodeStream(r io.Reader, h Handler) error {
	d := newDecoder(r, h)
	err := d.document()
	if stop, ok := errors.AsType[*handlerError](err); ok {
		return stop.err
	}
	if err == nil {
		d.finish()
	}
	if serr, ok := errors.AsType[*SnapshotError](err); ok {
		// A document that cannot be read further: that comes first, then
		// what was found before it.
		d.problems = append(serr.Problems, d.problems...)
	} else if err != nil && !errors.Is(err, errTooManyProblems) {
		return err
	}
	if len(d.problems) == 0 {
		return nil
	}
	e := &SnapshotError{Problems: d.problems, More: d.more}
	if len(e.Problems) > maxProblems {
		e.Problems, e.More = e.Problems[:maxProblems], true
	}
	return e
}

// handlerError carries an error of the handler up through the decoder.
type handlerError struct{ err error }

func (e *handlerError) Error() string { return e.err.Error() }

// errTooManyProblems stops decoding once more problems were found than a
// SnapshotError reports.
var errTooManyProblems = errors.New("too many problems")

// decoder is the state of one DecodeStream.
type decoder struct {
	tok *tokens
	h   Handler
	rel releaseState

	path     []seg // where the value being read sits
	openKeys int   // keys of the objects open now; see maxOpenKeys
	problems []string
	more     bool // problems were dropped
	failed   bool // a problem was found: h is not called any more
	bad      bool // the current part broke a rule while it was read

	sawFormat, sawRelease bool

	// Scratch, reused from one part to the next.
	t        store.Table
	tv       store.Table // the view of t handed to h
	l        store.Logic
	lv       store.Logic
	cols     map[string]struct{}
	unquoted []byte            // a string with escapes, unquoted
	interned map[string]string // see intern
}

func newDecoder(r io.Reader, h Handler) *decoder {
	return &decoder{tok: newTokens(r), h: h, rel: newReleaseState(), cols: map[string]struct{}{},
		interned: map[string]string{}}
}

// document reads the top-level object.
func (d *decoder) document() error {
	dec := d.tok.dec
	switch k := dec.PeekKind(); k {
	case '{':
	case 0:
		_, err := dec.ReadToken()
		if err == io.EOF {
			return problem("invalid JSON: the document ends early (truncated?)")
		}
		return d.tok.fatal(err)
	default:
		return problem("document: want a JSON object, got %s", kindWord(k, true))
	}
	if _, err := dec.ReadToken(); err != nil {
		return d.tok.fatal(err)
	}
	for {
		key, more, err := d.member()
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch key.String() {
		case "formatVersion":
			err = d.formatVersion()
		case "release":
			err = d.release()
		case "origin":
			err = d.origin()
		case "connections":
			err = d.connections()
		case "tables":
			err = d.tables()
		case "logics":
			err = d.logics()
		default: // not in the format: dropped
			err = d.skip()
		}
		if err != nil {
			return err
		}
	}
	if k := dec.PeekKind(); k != 0 {
		return problem("document: unexpected data after the end of the JSON object (%s)", d.tok.at())
	}
	_, err := dec.ReadToken()
	if se, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		return problem("document: unexpected data after the end of the JSON object (%s)", d.tok.in.position(se.ByteOffset))
	}
	if err != io.EOF {
		return d.tok.fatal(err)
	}
	return nil
}

// finish runs the checks that need the whole document.
func (d *decoder) finish() {
	d.rel.checkPending(d)
	if !d.sawFormat {
		d.addAt("formatVersion", "missing (or 0); this hubsnap reads version %d", FormatVersion)
	}
	if !d.sawRelease {
		d.checkRelease(store.Release{})
	}
}

func (d *decoder) formatVersion() error {
	d.push("formatVersion")
	defer d.pop()
	d.sawFormat = true
	v, ok, err := d.integer()
	switch {
	case err != nil || !ok:
		return err
	case v == FormatVersion:
	case v == 0:
		d.add("", "missing (or 0); this hubsnap reads version %d", FormatVersion)
	default:
		d.add("", "unsupported version %d; this hubsnap reads version %d", v, FormatVersion)
	}
	return nil
}

func (d *decoder) release() error {
	d.push("release")
	defer d.pop()
	d.sawRelease, d.bad = true, false
	var r store.Release
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "id":
			r.ID, err = d.str("id", maxName, freeText)
		case "project":
			r.Project, err = d.str("project", maxName, freeText)
		case "environment":
			r.Environment, err = d.str("environment", maxName, freeText)
		case "version":
			r.Version, _, err = d.integerAt("version")
		case "createdAt":
			r.CreatedAt, err = d.str("createdAt", maxName, uniqueName)
		default:
			err = d.skip()
		}
		return err
	})
	if err != nil || d.bad {
		return err
	}
	if d.checkRelease(r) && !d.failed {
		return d.call(d.h.Release(r))
	}
	return nil
}

// checkRelease reports whether r may name a release: its names become file
// names.
func (d *decoder) checkRelease(r store.Release) bool {
	n := len(d.problems)
	d.releaseName("release.id", r.ID)
	d.releaseName("release.project", r.Project)
	d.releaseName("release.environment", r.Environment)
	if r.Version < 0 {
		d.addAt("release.version", "negative (%d)", r.Version)
	}
	return len(d.problems) == n && !d.more
}

func (d *decoder) releaseName(path, s string) {
	switch {
	case s == "":
		d.addAt(path, "empty")
	case !ValidName(s):
		d.addAt(path, "%s is not valid: it must match %s", quote(s), NamePattern)
	}
}

func (d *decoder) origin() error {
	d.push("origin")
	defer d.pop()
	d.bad = false
	var o store.Origin
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "source":
			o.Source, err = d.str("source", maxName, uniqueName)
		case "digest":
			o.Digest, err = d.str("digest", maxName, uniqueName)
		case "syncedAt":
			o.SyncedAt, err = d.str("syncedAt", maxName, uniqueName)
		default:
			err = d.skip()
		}
		return err
	})
	if err != nil || d.bad || d.failed {
		return err
	}
	return d.call(d.h.Origin(o))
}

func (d *decoder) connections() error {
	seen := map[string]bool{}
	return d.array("connections", true, maxList, "connections", func(i int) error {
		return d.connection(i, seen)
	})
}

func (d *decoder) connection(i int, seen map[string]bool) error {
	d.bad = false
	var c store.Connection
	err := d.object(func(key jsontext.Token) (err error) {
		switch key.String() { // no copy: compared, not kept
		case "name":
			c.Name, err = d.str("name", maxName, commonName)
		case "engine":
			c.Engine, err = d.str("engine", maxName, commonName)
		default: // the URL, credentials, options: dropped
			err = d.skip()
		}
		return err
	})
	if err != nil || d.bad {
		return err
	}
	switch {
	case c.Name == "":
		d.add("name", "empty")
	case seen[c.Name]:
		d.add("name", "duplicate %s", quote(c.Name))
	}
	seen[c.Name] = true
	if d.failed {
		return nil
	}
	return d.call(d.h.Connection(i, c))
}

// call wraps an error of the handler so that it comes back as is.
func (d *decoder) call(err error) error {
	if err != nil {
		return &handlerError{err}
	}
	return nil
}
