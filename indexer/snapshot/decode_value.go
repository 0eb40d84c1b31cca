package snapshot

import (
	"bytes"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// mistyped records a value of the wrong kind and skips it. want says what
// was expected ("a string"); article says whether the kind found is told
// with an article, as the top-level lists are.
func (d *decoder) mistyped(want string, k jsontext.Kind, article bool) error {
	d.invalid("", "want %s, got %s (%s)", want, kindWord(k, article), d.tok.at())
	return d.skip()
}

// skip reads and drops the next value, checking it all the same.
func (d *decoder) skip() error {
	dec := d.tok.dec
	if k := dec.PeekKind(); k != '{' && k != '[' {
		if err := dec.SkipValue(); err != nil {
			return d.tok.fatal(err)
		}
		return nil
	}
	depth := dec.StackDepth()
	for {
		if err := d.countKey(); err != nil {
			return err
		}
		if _, err := dec.ReadToken(); err != nil {
			return d.tok.fatal(err)
		}
		if dec.StackDepth() == depth {
			return nil
		}
	}
}

// maxOpenKeys caps the keys of the objects open at once. The tokenizer
// remembers every key of an open object to reject a key that comes twice,
// at some 100 bytes a key: without a cap, a dropped field of 5 million
// keys would take 500 MB. The format's own objects have a few keys each.
const maxOpenKeys = 100_000

// countKey counts the keys of the open objects as the next token is read:
// one more for a key, the object's all fewer for its end.
func (d *decoder) countKey() error {
	dec := d.tok.dec
	kind, n := dec.StackIndex(dec.StackDepth())
	if kind != '{' || n%2 != 0 {
		return nil // not where a key or the end of an object comes
	}
	switch dec.PeekKind() {
	case '}':
		d.openKeys -= int(n / 2)
	case '"':
		if d.openKeys++; d.openKeys > maxOpenKeys {
			return problem("%s: more than %d keys in the objects open at once (%s)", d.tok.pending(), maxOpenKeys, d.tok.at())
		}
	}
	return nil
}

// read reads the next token, which PeekKind has seen.
func (d *decoder) read() (jsontext.Token, error) {
	tok, err := d.tok.dec.ReadToken()
	if err != nil {
		return tok, d.tok.fatal(err)
	}
	return tok, nil
}

// peek returns the kind of the next token, or an error when there is none.
func (d *decoder) peek() (jsontext.Kind, error) {
	k := d.tok.dec.PeekKind()
	if k == 0 {
		_, err := d.read()
		if err == nil { // cannot happen: PeekKind failed
			err = problem("invalid JSON at %s", d.tok.at())
		}
		return 0, err
	}
	return k, nil
}

// beginObject starts reading an object. It reports false, having read the
// value, for null (an empty object) and for a value of another kind.
func (d *decoder) beginObject(article bool) (bool, error) {
	switch k, err := d.peek(); {
	case err != nil:
		return false, err
	case k == 'n':
		_, err := d.read()
		return false, err
	case k != '{':
		return false, d.mistyped("an object", k, article)
	}
	_, err := d.read()
	return err == nil, err
}

// member reads the next key of an object, or its end (more is false). The
// key is valid until the next read.
func (d *decoder) member() (key jsontext.Token, more bool, err error) {
	k, err := d.peek()
	if err == nil {
		err = d.countKey()
	}
	switch {
	case err != nil:
		return key, false, err
	case k == '}':
		_, err := d.read()
		return key, false, err
	case k != '"':
		return key, false, problem("invalid JSON at %s: want a key (a string in double quotes)", d.tok.at())
	}
	key, err = d.read()
	return key, err == nil, err
}

// object reads the object at hand, or null, handing each member's key to
// field, which reads (or skips) its value. The key is valid until the
// next read: a switch on key.String() compares it without copying it.
func (d *decoder) object(field func(key jsontext.Token) error) error {
	ok, err := d.beginObject(false)
	for ok && err == nil {
		var key jsontext.Token
		if key, ok, err = d.member(); ok && err == nil {
			err = field(key)
		}
	}
	return err
}

// array reads the array at key, or null, handing each element to elem
// with the path at key[i]. Past limit elements the rest are skipped and
// "more than limit what" is reported once: as a problem of the document
// for a top-level array (top), else of the part being read (invalid).
func (d *decoder) array(key string, top bool, limit int, what string, elem func(i int) error) error {
	d.push(key)
	defer d.pop()
	ok, err := d.beginArray(top)
	for i := 0; ok && err == nil; i++ {
		if ok, err = d.elem(); !ok || err != nil {
			break
		}
		if i >= limit {
			if i == limit && top {
				d.add("", "more than %d %s", limit, what)
			} else if i == limit {
				d.invalid("", "more than %d %s", limit, what)
			}
			err = d.skip()
			continue
		}
		d.pushIndex(i)
		err = elem(i)
		d.pop()
	}
	return err
}

// beginArray starts reading an array, like beginObject.
func (d *decoder) beginArray(article bool) (bool, error) {
	switch k, err := d.peek(); {
	case err != nil:
		return false, err
	case k == 'n':
		_, err := d.read()
		return false, err
	case k != '[':
		return false, d.mistyped("an array", k, article)
	}
	_, err := d.read()
	return err == nil, err
}

// elem reports whether another element of an array follows, reading the
// end of the array when none does. It stops decoding once there are more
// problems than can be reported.
func (d *decoder) elem() (bool, error) {
	if d.more {
		return false, errTooManyProblems
	}
	k, err := d.peek()
	switch {
	case err != nil:
		return false, err
	case k == ']':
		_, err := d.read()
		return false, err
	}
	return true, nil
}

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
