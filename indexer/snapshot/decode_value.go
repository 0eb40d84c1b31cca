package snapshot

import (
	"bytes"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Reading the values of a document: strings, booleans, integers, lists of
// names.

// textKind says which rules a string follows.
type textKind uint8

const (
	freeText   textKind = iota // a comment, a description, a default, SQL: any text
	uniqueName                 // a name, without control characters, seldom repeated
	commonName                 // a name that repeats from table to table: column names, types: shared
)

// str reads the string at key; see text.
func (d *decoder) str(key string, limit int, kind textKind) (string, error) {
	d.push(key)
	s, err := d.text(limit, kind)
	d.pop()
	return s, err
}

// text reads a string (null is "") of at most limit bytes. A name may not
// hold control characters. On a problem it returns "".
func (d *decoder) text(limit int, kind textKind) (string, error) {
	k, err := d.peek()
	switch {
	case err != nil:
		return "", err
	case k == 'n':
		_, err := d.read()
		return "", err
	case k != '"':
		return "", d.mistyped("a string", k, false)
	}
	v, err := d.tok.dec.ReadValue()
	if err != nil {
		return "", d.tok.fatal(err)
	}
	raw := v[1 : len(v)-1]
	if bytes.IndexByte(raw, '\\') >= 0 {
		if d.unquoted, err = jsontext.AppendUnquote(d.unquoted[:0], v); err != nil {
			return "", d.tok.fatal(err)
		}
		raw = d.unquoted
	}
	var s string
	switch {
	case len(raw) > limit:
		d.invalid("", "longer than %s", kib(limit))
		return "", nil
	case kind != freeText && hasControl(raw):
		d.invalid("", "%s has a control character", quote(string(raw)))
		return "", nil
	case kind == commonName:
		s = d.intern(raw)
	default:
		s = string(raw)
	}
	return s, nil
}

// maxInterned caps how many distinct names one decode shares.
const maxInterned = 8192

// intern returns b as a string, the same string for the same short name:
// column names and types repeat from table to table.
func (d *decoder) intern(b []byte) string {
	if len(b) > 64 {
		return string(b)
	}
	if s, ok := d.interned[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(d.interned) < maxInterned {
		d.interned[s] = s
	}
	return s
}

// hasControl reports whether s holds U+0000-U+001F or U+007F.
func hasControl(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}

// boolean reads the boolean at key. set is false for null.
func (d *decoder) boolean(key string) (v, set bool, err error) {
	d.push(key)
	defer d.pop()
	k, err := d.peek()
	switch {
	case err != nil:
		return false, false, err
	case k == 'n':
		_, err := d.read()
		return false, false, err
	case k != 't' && k != 'f':
		return false, false, d.mistyped("a boolean", k, false)
	}
	tok, err := d.read()
	if err != nil {
		return false, false, err
	}
	return tok.Bool(), true, nil
}

// integerAt reads the integer at key; see integer.
func (d *decoder) integerAt(key string) (int64, bool, error) {
	d.push(key)
	defer d.pop()
	return d.integer()
}

// integer reads an integer (null is 0). ok is false when the value is not
// one.
func (d *decoder) integer() (v int64, ok bool, err error) {
	k, err := d.peek()
	switch {
	case err != nil:
		return 0, false, err
	case k == 'n':
		_, err := d.read()
		return 0, err == nil, err
	case k != '0':
		return 0, false, d.mistyped("an integer", k, false)
	}
	tok, err := d.read()
	if err != nil {
		return 0, false, err
	}
	lit := tok.String()
	v, perr := strconv.ParseInt(lit, 10, 64)
	if perr != nil {
		at := d.tok.in.position(d.tok.dec.InputOffset() - int64(len(lit)))
		if len(lit) > 40 {
			lit = lit[:40] + "..."
		}
		d.invalid("", "want an integer, got number %s (%s)", lit, at)
		return 0, false, nil
	}
	return v, true, nil
}

// scalar reads a string, number or boolean as text (null is ""), of at
// most limit bytes; a name may not hold control characters. A number keeps
// its literal form.
func (d *decoder) scalar(limit int, kind textKind) (string, error) {
	k, err := d.peek()
	switch {
	case err != nil:
		return "", err
	case k == '"':
		return d.text(limit, kind)
	case k == '{' || k == '[':
		d.invalid("", "want a string, number or boolean, got %s (%s)", kindWord(k, true), d.tok.at())
		return "", d.skip()
	}
	tok, err := d.read()
	if err != nil || k == 'n' {
		return "", err
	}
	s := tok.String()
	if len(s) > limit {
		d.invalid("", "longer than %s", kib(limit))
		return "", nil
	}
	return s, nil
}

// names reads the list of names at key into dst[:0]: at most maxN names of
// at most 1 KiB each, without control characters; what names them in a
// message ("columns").
func (d *decoder) names(key string, dst []string, maxN int, what string) ([]string, error) {
	dst = dst[:0]
	err := d.array(key, false, maxN, what, func(int) error {
		s, err := d.text(maxName, commonName)
		dst = append(dst, s)
		return err
	})
	if len(dst) == 0 {
		dst = nil
	}
	return dst, err
}
