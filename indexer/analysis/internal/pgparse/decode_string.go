package pgparse

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// key reads an object key without escapes (libpg_query's keys are plain);
// a key with escapes is decoded.
func (r *jr) key() []byte {
	if !r.expect('"') {
		return nil
	}
	start := r.i
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case '"':
			k := r.b[start:r.i]
			r.i++
			return k
		case '\\':
			r.i = start - 1
			return []byte(r.str())
		}
		r.i++
	}
	r.fail(errJSON)
	return nil
}

// str reads a string value.
func (r *jr) str() string {
	if !r.expect('"') {
		return ""
	}
	start := r.i
	for r.i < len(r.b) {
		c := r.b[r.i]
		if c == '"' {
			s := string(r.b[start:r.i])
			r.i++
			return s
		}
		if c == '\\' {
			return r.escaped(start)
		}
		r.i++
	}
	r.fail(errJSON)
	return ""
}

// escaped finishes a string with escapes that began at start.
func (r *jr) escaped(start int) string {
	out := append([]byte(nil), r.b[start:r.i]...)
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			r.i++
			return string(out)
		case c != '\\':
			out = append(out, c)
			r.i++
			continue
		}
		if r.i+1 >= len(r.b) {
			break
		}
		e := r.b[r.i+1]
		r.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			v, ok := r.hex4()
			if !ok {
				r.fail(errJSON)
				return ""
			}
			if utf16.IsSurrogate(rune(v)) && r.i+1 < len(r.b) && r.b[r.i] == '\\' && r.b[r.i+1] == 'u' {
				r.i += 2
				w, ok := r.hex4()
				if !ok {
					r.fail(errJSON)
					return ""
				}
				out = utf8.AppendRune(out, utf16.DecodeRune(rune(v), rune(w)))
				continue
			}
			out = utf8.AppendRune(out, rune(v))
		default:
			r.fail(errJSON)
			return ""
		}
	}
	r.fail(errJSON)
	return ""
}

func (r *jr) hex4() (uint64, bool) {
	if r.i+4 > len(r.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(r.b[r.i:r.i+4]), 16, 32)
	r.i += 4
	return v, err == nil
}
