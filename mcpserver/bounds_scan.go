package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// checkArgumentBounds reads raw arguments, which must be valid JSON (the
// JSON-RPC layer decoded the message they came in), without decoding
// them, and returns an error saying what is wrong when they are nested
// deeper than maxArgumentDepth, hold more than maxArgumentValues values,
// or hold a string or array over the maxLength or maxItems of its schema
// in the input schema in. Arguments that are not an object are left to
// go-sdk, which says so.
func checkArgumentBounds(raw []byte, in *jsonschema.Schema) error {
	sc := &argumentScan{data: raw}
	sc.space()
	if sc.pos >= len(raw) || raw[sc.pos] != '{' {
		return nil
	}
	return sc.value(in, nil, 1)
}

// argumentScan is a walk over valid JSON.
type argumentScan struct {
	data   []byte
	pos    int
	values int
}

// value reads the value at pos, whose schema is sch (nil where the input
// schema has none) and whose argument is named name (nil at the top and
// under unknown names).
func (sc *argumentScan) value(sch *jsonschema.Schema, name []byte, depth int) error {
	if depth > maxArgumentDepth {
		return fmt.Errorf("the arguments are nested deeper than %d levels", maxArgumentDepth)
	}
	if sc.values++; sc.values > maxArgumentValues {
		return fmt.Errorf("the arguments hold more than %d values", maxArgumentValues)
	}
	sc.space()
	switch sc.data[sc.pos] {
	case '{':
		sc.pos++
		for {
			sc.space()
			switch sc.data[sc.pos] {
			case '}':
				sc.pos++
				return nil
			case ',':
				sc.pos++
				sc.space()
			}
			start := sc.pos
			sc.str()
			key := sc.data[start+1 : sc.pos-1]
			if bytes.IndexByte(key, '\\') >= 0 && len(key) <= 256 {
				var k string // a short key with escapes, as go-sdk will read it
				if json.Unmarshal(sc.data[start:sc.pos], &k) == nil {
					key = []byte(k)
				}
			}
			sc.space()
			sc.pos++ // ':'
			var p *jsonschema.Schema
			if sch != nil {
				p = sch.Properties[string(key)] // no allocation: a map lookup
			}
			if p == nil {
				key = nil
			}
			if err := sc.value(p, key, depth+1); err != nil {
				return err
			}
		}
	case '[':
		sc.pos++
		var item *jsonschema.Schema
		if sch != nil {
			item = sch.Items
		}
		for n := 1; ; n++ {
			sc.space()
			switch sc.data[sc.pos] {
			case ']':
				sc.pos++
				return nil
			case ',':
				sc.pos++
			}
			if sch != nil && sch.MaxItems != nil && n > *sch.MaxItems {
				return fmt.Errorf("%s: at most %d items", argName(name), *sch.MaxItems)
			}
			if err := sc.value(item, name, depth+1); err != nil {
				return err
			}
		}
	case '"':
		n := sc.str()
		if sch != nil && sch.MaxLength != nil && n > *sch.MaxLength {
			return fmt.Errorf("%s: at most %d characters", argName(name), *sch.MaxLength)
		}
		return nil
	}
	for sc.pos < len(sc.data) { // a number, true, false or null
		switch sc.data[sc.pos] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return nil
		}
		sc.pos++
	}
	return nil
}

// argName names an argument in a message.
func argName(name []byte) string {
	if name == nil {
		return "an argument"
	}
	return string(name)
}

// space skips white space.
func (sc *argumentScan) space() {
	for sc.pos < len(sc.data) {
		switch sc.data[sc.pos] {
		case ' ', '\t', '\n', '\r':
			sc.pos++
		default:
			return
		}
	}
}

// str reads the string at pos, past its closing quote, and returns its
// length in Unicode code points once decoded, as JSON Schema's maxLength
// counts: an escape is one, a surrogate pair one, an invalid byte one (it
// decodes to U+FFFD).
func (sc *argumentScan) str() int {
	sc.pos++ // the opening quote
	n := 0
	for sc.pos < len(sc.data) {
		switch c := sc.data[sc.pos]; {
		case c == '"':
			sc.pos++
			return n
		case c == '\\' && sc.data[sc.pos+1] == 'u':
			if isHighSurrogate(sc.data[sc.pos+2:]) && sc.pos+11 < len(sc.data) &&
				sc.data[sc.pos+6] == '\\' && sc.data[sc.pos+7] == 'u' && isLowSurrogate(sc.data[sc.pos+8:]) {
				sc.pos += 6 // the pair is one code point
			}
			sc.pos += 6
		case c == '\\':
			sc.pos += 2
		case c < utf8.RuneSelf:
			sc.pos++
		default:
			_, size := utf8.DecodeRune(sc.data[sc.pos:])
			sc.pos += size
		}
		n++
	}
	return n
}

// isHighSurrogate reports whether hex (the 4 digits of a \u escape) is
// D800-DBFF; isLowSurrogate, DC00-DFFF.
func isHighSurrogate(hex []byte) bool { return surrogate(hex, '8', 'b') }
func isLowSurrogate(hex []byte) bool  { return surrogate(hex, 'c', 'f') }

func surrogate(hex []byte, lo, hi byte) bool {
	if len(hex) < 4 || (hex[0] != 'd' && hex[0] != 'D') {
		return false
	}
	c := hex[1] | 0x20 // lower case
	return c >= lo && c <= hi
}
