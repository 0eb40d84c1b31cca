package snapshot

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Encoder writes a release file part by part, in the order the parts
// come, as a snapshot document in the format's canonical form: every
// default written out, only the fields the format names. Nothing holds the
// whole release.
type Encoder struct {
	bw      *bufio.Writer
	enc     *json.Encoder
	open    string          // the top-level array being written, "" for none
	written map[string]bool // the top-level members written
}

// NewEncoder returns an Encoder writing to w, through a buffer of its own.
func NewEncoder(w io.Writer) *Encoder {
	e := &Encoder{bw: bufio.NewWriterSize(w, 64<<10), written: map[string]bool{}}
	e.enc = json.NewEncoder(e.bw)
	e.enc.SetEscapeHTML(false)
	fmt.Fprintf(e.bw, `{"formatVersion":%d`, FormatVersion)
	return e
}

// Encode writes p. An origin is not written: Finish writes the release
// file's own.
func (e *Encoder) Encode(p Part) error {
	switch p.Kind {
	case KindRelease:
		return e.member("release", docRelease(p.Release))
	case KindConnection:
		return e.item("connections", docConnection(p.Connection))
	case KindTable:
		return e.item("tables", docTableOf(p.Table))
	case KindLogic:
		return e.item("logics", docLogicOf(p.Logic))
	}
	return nil
}

// Finish writes the lists that had no element and the origin o, ends the
// document and flushes the buffer.
func (e *Encoder) Finish(o Origin) error {
	e.close()
	for _, key := range []string{"connections", "tables", "logics"} {
		if !e.written[key] {
			fmt.Fprintf(e.bw, `,%q:[]`, key)
		}
	}
	if err := e.member("origin", docOrigin(o)); err != nil {
		return err
	}
	e.bw.WriteString("}\n")
	return e.bw.Flush()
}

// close ends the top-level array being written.
func (e *Encoder) close() {
	if e.open != "" {
		e.bw.WriteByte(']')
		e.open = ""
	}
}

// member writes a top-level member.
func (e *Encoder) member(key string, v any) error {
	e.close()
	fmt.Fprintf(e.bw, `,%q:`, key)
	e.written[key] = true
	return e.enc.Encode(v) // its newline is white space between members
}

// item writes an element of the top-level array key.
func (e *Encoder) item(key string, v any) error {
	if e.open != key {
		e.close()
		fmt.Fprintf(e.bw, `,%q:[`, key)
		e.open, e.written[key] = key, true
	} else {
		e.bw.WriteByte(',')
	}
	return e.enc.Encode(v)
}

// Encode writes s whole as one line of JSON in the form of a release file,
// with its origin: the counterpart of Decode, for callers that hold a
// snapshot whole (tests, small tools). Release files are written part by
// part with an Encoder.
func Encode(w io.Writer, s *Snapshot) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(newDocument(s)); err != nil {
		return fmt.Errorf("encode release %s: %w", s.Release.ID, err)
	}
	return nil
}

// newDocument converts a snapshot to the JSON form of a release file, with
// every default written out.
func newDocument(s *Snapshot) *document {
	o := docOrigin(s.Origin)
	d := &document{
		FormatVersion: FormatVersion,
		Release:       docRelease(s.Release),
		Origin:        &o,
		Connections:   make([]docConnection, len(s.Connections)),
		Tables:        make([]docTable, len(s.Tables)),
		Logics:        make([]docLogic, len(s.Logics)),
	}
	for i, c := range s.Connections {
		d.Connections[i] = docConnection(c)
	}
	for i := range s.Tables {
		d.Tables[i] = docTableOf(&s.Tables[i])
	}
	for i := range s.Logics {
		d.Logics[i] = docLogicOf(&s.Logics[i])
	}
	return d
}
