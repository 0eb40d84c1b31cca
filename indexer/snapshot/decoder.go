package snapshot

import (
	"errors"
	"io"
	"iter"

	"github.com/go-json-experiment/json/jsontext"
)

// Kind says which member of a snapshot document a Part is.
type Kind uint8

// The kinds of parts, one for each top-level member the format names.
const (
	KindRelease    Kind = iota + 1 // the "release" object
	KindOrigin                     // the "origin" object, which only release files written by hubsnap carry
	KindConnection                 // an element of "connections"
	KindTable                      // an element of "tables"
	KindLogic                      // an element of "logics"
)

// Part is one part of a snapshot document, decoded, checked, defaulted and
// sanitized: the field its Kind names is set. Index is the part's position
// in its list. An empty list is always nil. Table and Logic point into the
// decoder's scratch, which the next call of Next reuses: a caller copies
// what it keeps. Read is how many bytes of the document were decoded up to
// the part's end: a caller sizes what it keeps by it (0 when the part
// does not come from a document).
type Part struct {
	Kind       Kind
	Index      int
	Read       int64
	Release    Release
	Origin     Origin
	Connection Connection
	Table      *Table
	Logic      *Logic
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

// Decoder reads a snapshot document from a reader token by token and
// hands out its parts as they come, never holding more than one table or
// logic (and, per release, a compact record of the tables' and columns'
// names for the checks that span tables), nor any token over 1 MiB:
//
//	d := snapshot.NewDecoder(r)
//	defer d.Close()
//	for d.Next() {
//		part := d.Part()
//		...
//	}
//	if err := d.Err(); err != nil { ... }
//
// Parts follow the order of the document, whose top-level members may come
// in any order: a caller must not count on the release coming first. A
// part that breaks a rule of the format is not handed out, and once a
// problem is found no part is: decoding goes on only to report more
// problems. So the release is not handed out after a bad formatVersion,
// but a formatVersion that comes after the release, or none, is only
// judged when it is read, or at the end. The problems come back from Err
// as an *Error once the document ends (a document that cannot be read
// further ends there): the caller then undoes whatever it did with the
// parts. A read error of the reader comes back from Err as is.
type Decoder struct {
	next func() (Part, bool)
	stop func()
	part Part
	err  error
}

// NewDecoder returns a Decoder of the document r holds. Its decoding runs
// as a coroutine (iter.Pull) of the caller: no goroutine of its own.
func NewDecoder(r io.Reader) *Decoder {
	d := &Decoder{}
	d.next, d.stop = iter.Pull(func(yield func(Part) bool) { d.err = decode(r, yield) })
	return d
}

// Next decodes the next part, and reports whether there is one: false at
// the end of the document or at the first problem of the document or of
// its reader (see Err).
func (d *Decoder) Next() bool {
	p, ok := d.next()
	d.part = p
	return ok
}

// Part returns the part Next decoded.
func (d *Decoder) Part() Part { return d.part }

// Err returns why decoding ended once Next returned false: nil at the end
// of a valid document, an *Error when the document breaks the format, or
// the reader's error.
func (d *Decoder) Err() error { return d.err }

// Close stops decoding; a caller that stops before Next returns false
// must call it. Closing again, or after the end, does nothing.
func (d *Decoder) Close() { d.stop() }

// decode reads the document from r and hands its parts to yield; see
// Decoder.
func decode(r io.Reader, yield func(Part) bool) error {
	d := newDecoder(r, yield)
	err := d.document()
	if errors.Is(err, errStopped) {
		return nil
	}
	if err == nil {
		d.finish()
	}
	if serr, ok := errors.AsType[*Error](err); ok {
		// A document that cannot be read further: that comes first, then
		// what was found before it.
		d.problems = append(serr.Problems, d.problems...)
	} else if err != nil && !errors.Is(err, errTooManyProblems) {
		return err
	}
	if len(d.problems) == 0 {
		return nil
	}
	e := &Error{Problems: d.problems, More: d.more}
	if len(e.Problems) > maxProblems {
		e.Problems, e.More = e.Problems[:maxProblems], true
	}
	return e
}

// errStopped ends decoding whose caller stopped pulling parts.
var errStopped = errors.New("decoding stopped")

// errTooManyProblems stops decoding once more problems were found than a
// Error reports.
var errTooManyProblems = errors.New("too many problems")

// decoder is the state of one decode.
type decoder struct {
	tok   *tokens
	yield func(Part) bool
	rel   releaseState

	path     []seg // where the value being read sits
	openKeys int   // keys of the objects open now; see maxOpenKeys
	problems []string
	more     bool // problems were dropped
	failed   bool // a problem was found: no part is handed out any more
	bad      bool // the current part broke a rule while it was read

	sawFormat, sawRelease bool

	// Scratch, reused from one part to the next.
	t        Table
	tv       Table // the view of t handed out
	l        Logic
	lv       Logic
	cols     map[string]struct{}
	unquoted []byte            // a string with escapes, unquoted
	interned map[string]string // see intern
}

func newDecoder(r io.Reader, yield func(Part) bool) *decoder {
	return &decoder{tok: newTokens(r), yield: yield, rel: newReleaseState(), cols: map[string]struct{}{},
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
		d.checkRelease(Release{})
	}
}

// hand hands p out, and stops decoding when the caller stopped pulling.
func (d *decoder) hand(p Part) error {
	p.Read = d.tok.dec.InputOffset()
	if !d.yield(p) {
		return errStopped
	}
	return nil
}
