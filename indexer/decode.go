package indexer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/hubsnap/hubsnap/store"
)

// maxProblems caps how many validation problems one error reports.
const maxProblems = 50

// SnapshotError reports a snapshot document that cannot be used. Each
// problem starts with the path of the offending value, such as
// `tables[3].columns[2].name: duplicate "email"`.
type SnapshotError struct {
	Problems []string
	More     bool // more problems than Problems holds
}

// Error returns the first problem and how many others there are.
func (e *SnapshotError) Error() string {
	msg := "invalid snapshot: " + e.Problems[0]
	switch n := len(e.Problems) - 1; {
	case e.More:
		msg += fmt.Sprintf(" (and %d+ more problems)", n)
	case n == 1:
		msg += " (and 1 more problem)"
	case n > 1:
		msg += fmt.Sprintf(" (and %d more problems)", n)
	}
	return msg
}

// Decode parses a snapshot document, checks it against the rules of the
// snapshot format and returns the sanitized snapshot: only the fields the
// format names survive. Errors are *SnapshotError and name the offending
// path. Origin is what the document's "origin" says (release files carry
// one); callers decoding anything but a release file set it themselves.
func Decode(data []byte) (*store.Snapshot, error) {
	doc, err := decodeDocument(data)
	if err != nil {
		return nil, err
	}
	doc.applyDefaults()
	if problems := doc.validate(); len(problems) > 0 {
		e := &SnapshotError{Problems: problems}
		if len(problems) > maxProblems {
			e.Problems, e.More = problems[:maxProblems], true
		}
		return nil, e
	}
	return doc.snapshot(), nil
}

// decodeDocument decodes the top level by hand so that the elements of the
// big arrays decode one at a time and an error can name the element.
func decodeDocument(data []byte) (*document, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	doc := &document{}
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(data, 0, "", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, problem("document: want a JSON object, got %s", describe(tok))
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(data, dec.InputOffset(), "", err)
		}
		key, _ := tok.(string)
		// Keys match without regard to case, as encoding/json does below.
		switch {
		case strings.EqualFold(key, "formatVersion"):
			err = decodeValue(dec, data, "formatVersion", &doc.FormatVersion)
		case strings.EqualFold(key, "release"):
			err = decodeValue(dec, data, "release", &doc.Release)
		case strings.EqualFold(key, "origin"):
			err = decodeValue(dec, data, "origin", &doc.Origin)
		case strings.EqualFold(key, "connections"):
			err = decodeArray(dec, data, "connections", &doc.Connections)
		case strings.EqualFold(key, "tables"):
			err = decodeArray(dec, data, "tables", &doc.Tables)
		case strings.EqualFold(key, "logics"):
			err = decodeArray(dec, data, "logics", &doc.Logics)
		default: // not in the format: read and drop
			var skip json.RawMessage
			err = decodeValue(dec, data, key, &skip)
		}
		if err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, jsonError(data, dec.InputOffset(), "", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, problem("document: unexpected data after the end of the JSON object (%s)", position(data, dec.InputOffset()))
	}
	return doc, nil
}

func decodeValue(dec *json.Decoder, data []byte, path string, v any) error {
	start := dec.InputOffset()
	if err := dec.Decode(v); err != nil {
		return jsonError(data, start, path, err)
	}
	return nil
}

// decodeArray decodes a JSON array (or null) into out, one element at a time.
func decodeArray[T any](dec *json.Decoder, data []byte, path string, out *[]T) error {
	*out = nil
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return jsonError(data, start, path, err)
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return problem("%s: want an array, got %s (%s)", path, describe(tok), position(data, start))
	}
	for i := 0; dec.More(); i++ {
		var v T
		if err := decodeValue(dec, data, fmt.Sprintf("%s[%d]", path, i), &v); err != nil {
			return err
		}
		*out = append(*out, v)
	}
	if _, err := dec.Token(); err != nil {
		return jsonError(data, dec.InputOffset(), path, err)
	}
	return nil
}

// jsonError turns an encoding/json error into a located problem. base is
// the input offset where the value being decoded starts.
func jsonError(data []byte, base int64, path string, err error) error {
	base = skipSeparators(data, base)
	if syn, ok := errors.AsType[*json.SyntaxError](err); ok {
		return problem("invalid JSON at %s: %s", position(data, syn.Offset), syn.Error())
	}
	if typ, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		p := joinPath(path, typ.Field)
		if typ.Offset > 0 { // name the exact element, with its indexes
			composite := typ.Value == "object" || typ.Value == "array"
			if exact := locate(data, base, base+typ.Offset, path, composite); exact != "" {
				p = exact
			}
		}
		if p == "" {
			p = "document"
		}
		return problem("%s: want %s, got %s (%s)", p, kindOf(typ.Type), typ.Value, position(data, base+typ.Offset))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return problem("invalid JSON: the document ends early (truncated?)")
	}
	if path == "" {
		path = "document"
	}
	return problem("%s: %v (%s)", path, err, position(data, base))
}

// locate returns the path of the value at off, walking the JSON value that
// starts at start, whose path is base. encoding/json reports an offset
// inside or at the end of a mistyped value but names the field without
// array indexes. For a mistyped object or array (composite), the answer is
// the innermost one open at off; for a scalar, the one that ends there. It
// returns "" when lost.
func locate(data []byte, start, off int64, base string, composite bool) string {
	if start < 0 || start >= int64(len(data)) || off <= start {
		return ""
	}
	type frame struct {
		array   bool
		index   int
		key     string
		wantKey bool
	}
	var stack []*frame
	var open []string // paths of the objects and arrays open now
	pathOf := func() string {
		p := base
		for _, f := range stack {
			if f.array {
				p += fmt.Sprintf("[%d]", f.index)
			} else {
				p = joinPath(p, f.key)
			}
		}
		return p
	}
	done := func() { // a value finished: move its parent on
		if len(stack) > 0 {
			if f := stack[len(stack)-1]; f.array {
				f.index++
			} else {
				f.wantKey = true
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data[start:]))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		end := start + dec.InputOffset()
		if len(stack) > 0 {
			if f := stack[len(stack)-1]; !f.array && f.wantKey {
				if d, ok := tok.(json.Delim); ok && d == '}' {
					if end >= off && composite {
						return open[len(open)-1]
					}
					stack, open = stack[:len(stack)-1], open[:len(open)-1]
					done()
					continue
				}
				f.key, f.wantKey = fmt.Sprint(tok), false
				continue
			}
		}
		if d, ok := tok.(json.Delim); ok && (d == ']' || d == '}') {
			if end >= off && composite {
				return open[len(open)-1]
			}
			stack, open = stack[:len(stack)-1], open[:len(open)-1]
			done()
			continue
		}
		if end >= off && (!composite || tok == json.Delim('[') || tok == json.Delim('{')) {
			return pathOf()
		}
		if end >= off && composite && len(open) > 0 {
			return open[len(open)-1]
		}
		switch tok {
		case json.Delim('['):
			open = append(open, pathOf())
			stack = append(stack, &frame{array: true})
		case json.Delim('{'):
			open = append(open, pathOf())
			stack = append(stack, &frame{wantKey: true})
		default:
			done()
		}
	}
}

func problem(format string, args ...any) *SnapshotError {
	return &SnapshotError{Problems: []string{fmt.Sprintf(format, args...)}}
}

func joinPath(path, field string) string {
	switch {
	case path == "":
		return field
	case field == "":
		return path
	}
	return path + "." + field
}

// skipSeparators moves off past whitespace, commas and colons to where
// the next value starts.
func skipSeparators(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// position renders a byte offset as "line L, column C".
func position(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("line %d, column %d", line, col)
}

// kindOf names the JSON kind a Go type decodes from.
func kindOf(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return kindOf(t.Elem())
	}
	return "a value"
}

// describe names the kind of a JSON token.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return "an object"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	}
	return "a value"
}
