package snapshot

import "github.com/go-json-experiment/json/jsontext"

// Reading the structure of a document: objects, arrays, skipped values.

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
