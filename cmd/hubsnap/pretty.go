package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// indentJSON pretty-prints a JSON text for people: what fits in a line of
// about 90 characters stays on one line; each line after the first starts
// with indent. Object members keep their order (hubsnap puts names first).
func indentJSON(text, indent string) string {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return text
	}
	var b strings.Builder
	writePretty(&b, v, indent)
	return b.String()
}

// object is a JSON object with its members in order.
type object []member

type member struct {
	key   string
	value any
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(m.key)
		value, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeOrdered decodes one JSON value, objects as object.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := object{}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			value, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o = append(o, member{key.(string), value})
		}
		_, err := dec.Token() // }
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			value, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, value)
		}
		_, err := dec.Token() // ]
		return a, err
	}
	return tok, nil
}

func writePretty(b *strings.Builder, v any, indent string) {
	flat, _ := json.Marshal(v)
	if len(indent)+len(flat) <= 90 {
		b.Write(flat)
		return
	}
	inner := indent + "  "
	switch x := v.(type) {
	case object:
		b.WriteString("{")
		for i, m := range x {
			if i > 0 {
				b.WriteString(",")
			}
			key, _ := json.Marshal(m.key)
			fmt.Fprintf(b, "\n%s%s: ", inner, key)
			writePretty(b, m.value, inner)
		}
		fmt.Fprintf(b, "\n%s}", indent)
	case []any:
		b.WriteString("[")
		for i, e := range x {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(b, "\n%s", inner)
			writePretty(b, e, inner)
		}
		fmt.Fprintf(b, "\n%s]", indent)
	default:
		b.Write(flat)
	}
}
