package store

import "encoding/binary"

// The records of a spill (spill.go): a sort key first, written with
// appendKey so that byte order is the order wanted, then the values, read
// back with a keyReader.

// appendKey appends s to a sort key so that byte order of the keys is
// the order of the strings, whatever follows: a NUL is escaped as 00 FF
// and the string ends with 00 01. Names hold no control characters, so
// the escape is there for safety, not for speed.
func appendKey(b []byte, s string) []byte {
	for {
		i := indexNUL(s)
		if i < 0 {
			break
		}
		b = append(b, s[:i]...)
		b = append(b, 0, 0xff)
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, 0, 1)
}

func indexNUL(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}

// A keyReader reads back what appendKey and the payload appenders wrote.
type keyReader []byte

// key reads a string written by appendKey.
func (r *keyReader) key() string {
	b := *r
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] != 0 {
			continue
		}
		if b[i+1] == 1 {
			s := string(b[:i])
			if out != nil {
				s = string(append(out, b[:i]...))
			}
			*r = b[i+2:]
			return s
		}
		out = append(out, b[:i]...)
		out = append(out, 0)
		b = b[i+2:]
		i = -1
	}
	panic("store: malformed sort key")
}

// bytes reads a length-prefixed field.
func (r *keyReader) bytes() []byte {
	n, w := binary.Uvarint(*r)
	v := (*r)[w : w+int(n)]
	*r = (*r)[w+int(n):]
	return v
}

// int reads a varint.
func (r *keyReader) int() int64 {
	v, w := binary.Varint(*r)
	*r = (*r)[w:]
	return v
}

// uint16 reads a big-endian uint16.
func (r *keyReader) uint16() uint16 {
	v := binary.BigEndian.Uint16(*r)
	*r = (*r)[2:]
	return v
}

// uint32 reads a big-endian uint32 of a sort key.
func (r *keyReader) uint32() uint32 {
	v := binary.BigEndian.Uint32(*r)
	*r = (*r)[4:]
	return v
}

// uint64 reads a big-endian uint64 of a sort key.
func (r *keyReader) uint64() uint64 {
	v := binary.BigEndian.Uint64(*r)
	*r = (*r)[8:]
	return v
}

// appendField appends a length-prefixed field, read back by bytes.
func appendField(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
