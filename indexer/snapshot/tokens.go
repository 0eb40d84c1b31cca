package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// maxTokenBytes caps one JSON token (a string or a number) as it stands in
// the document, escapes included. The longest value the format allows, a
// 48 KiB SQL text, takes at most 288 KiB even with every byte escaped as
// \u00XX, so a longer token is over every bound. The tokenizer holds a
// token whole before handing it over: this cap is what keeps a 200 MB
// string, even in a field hubsnap drops, from ever being held. It counts
// the blank space before the token too.
const maxTokenBytes = 1 << 20

// errTokenTooLong is what the input returns to the tokenizer when one
// token would pass maxTokenBytes.
var errTokenTooLong = errors.New("token too long")

// input feeds the document to the tokenizer. It refuses to let the
// tokenizer buffer more than maxTokenBytes past the last token it
// returned, and it remembers where lines start near the tokenizer's
// position, so a problem can be located without the bytes before it.
type input struct {
	r   io.Reader
	dec *jsontext.Decoder

	fed   int64   // bytes handed to the tokenizer
	lines int64   // newlines among them
	nl    []int64 // offsets of the newlines at or after the tokenizer's position at the last Read
	last  int64   // offset of the newline before nl[0], or -1
	err   error   // the error of r, other than io.EOF
}

func (in *input) Read(p []byte) (int, error) {
	at := in.dec.InputOffset()
	room := maxTokenBytes - (in.fed - at)
	if room <= 0 {
		return 0, errTokenTooLong
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	// Newlines before the tokenizer's position are never asked about
	// again: keep only the last of them.
	k := sort.Search(len(in.nl), func(i int) bool { return in.nl[i] >= at })
	if k > 0 {
		in.last = in.nl[k-1]
		in.nl = in.nl[k:]
	}
	n, err := in.r.Read(p)
	for i, b := 0, p[:n]; ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		in.nl = append(in.nl, in.fed+int64(i+j))
		in.lines++
		i += j + 1
	}
	in.fed += int64(n)
	if err != nil && err != io.EOF {
		in.err = err
	}
	return n, err
}

// position renders an offset at or after the tokenizer's position as
// "line L, column C" (columns count bytes, from 1).
func (in *input) position(off int64) string {
	k := sort.Search(len(in.nl), func(i int) bool { return in.nl[i] >= off })
	line := 1 + in.lines - int64(len(in.nl)-k)
	start := in.last
	if k > 0 {
		start = in.nl[k-1]
	}
	return fmt.Sprintf("line %d, column %d", line, off-start)
}

// tokens reads the document token by token for the decoder.
type tokens struct {
	dec *jsontext.Decoder
	in  *input
}

func newTokens(r io.Reader) *tokens {
	in := &input{r: r, last: -1}
	// Duplicate names and invalid UTF-8 are rejected: the defaults, spelt
	// out because the decoder relies on them.
	in.dec = jsontext.NewDecoder(in, jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false))
	return &tokens{dec: in.dec, in: in}
}

// next returns the offset where the next token starts. Call it after
// PeekKind, which has buffered that token's first byte.
func (t *tokens) next() int64 {
	buf := t.dec.UnreadBuffer()
	n := len(buf) - len(bytes.TrimLeft(buf, " \t\r\n,:"))
	return t.dec.InputOffset() + int64(n)
}

// at renders the position of the next token.
func (t *tokens) at() string { return t.in.position(t.next()) }

// fatal turns an error of the tokenizer into a problem, or returns it as
// is when it is not about the document (a read error of the file or the
// connection).
func (t *tokens) fatal(err error) error {
	if errors.Is(err, errTokenTooLong) {
		p := t.pending()
		buf := t.dec.UnreadBuffer()
		if len(bytes.TrimLeft(buf, " \t\r\n,:")) == 0 {
			return problem("%s: more than %s of blank space (%s)", p, kib(maxTokenBytes), t.in.position(t.dec.InputOffset()))
		}
		return problem("%s: value longer than %s (%s)", p, kib(maxTokenBytes), t.at())
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return problem("invalid JSON: the document ends early (truncated?)")
	}
	if t.in.err != nil && errors.Is(err, t.in.err) {
		return t.in.err // the tokenizer's wrapping says nothing more
	}
	se, ok := errors.AsType[*jsontext.SyntacticError](err)
	if !ok {
		return err
	}
	where := t.in.position(se.ByteOffset)
	p, inKey := t.pointerPath(se.JSONPointer)
	switch {
	case errors.Is(se.Err, jsontext.ErrDuplicateName):
		return problem("%s: duplicate key (%s)", p, where)
	case strings.Contains(se.Err.Error(), "invalid UTF-8"):
		if inKey {
			return problem("%s: invalid UTF-8 in a key (%s)", p, where)
		}
		return problem("%s: invalid UTF-8 (%s)", p, where)
	}
	return problem("invalid JSON at %s: %v", where, se.Err)
}

// pointerPath renders a JSON pointer of the tokenizer as a path of the
// format, telling array indexes from object keys by the tokenizer's
// stack. inKey reports that the pointer stops short of the innermost open
// object: the problem is in one of its keys.
func (t *tokens) pointerPath(ptr jsontext.Pointer) (p string, inKey bool) {
	var b strings.Builder
	level := 0
	for tok := range ptr.Tokens() {
		level++
		kind, _ := t.dec.StackIndex(level)
		writeSegment(&b, tok, kind == '[')
	}
	depth := t.dec.StackDepth()
	if level < depth {
		kind, n := t.dec.StackIndex(depth)
		inKey = kind == '{' && n%2 == 0
	}
	if b.Len() == 0 {
		return "document", inKey
	}
	return b.String(), inKey
}

// pending renders the path of the value the tokenizer is about to read.
func (t *tokens) pending() string {
	type seg struct {
		tok   string
		index bool
	}
	var segs []seg
	level := 0
	for tok := range t.dec.StackPointer().Tokens() {
		level++
		kind, _ := t.dec.StackIndex(level)
		segs = append(segs, seg{tok, kind == '['})
	}
	if depth := t.dec.StackDepth(); depth > 0 {
		kind, n := t.dec.StackIndex(depth)
		switch {
		case kind == '[' && len(segs) == depth: // the pointer names the last element read
			segs[depth-1].tok = strconv.FormatInt(n, 10)
		case kind == '[':
			segs = append(segs, seg{strconv.FormatInt(n, 10), true})
		case n%2 == 0 && len(segs) == depth: // between members: a key comes next
			segs = segs[:depth-1]
		}
	}
	var b strings.Builder
	for _, s := range segs {
		writeSegment(&b, s.tok, s.index)
	}
	if b.Len() == 0 {
		return "document"
	}
	return b.String()
}

// writeSegment adds an index or a key to a path: [3], .name, or ["a key"]
// for a key that is not a plain identifier.
func writeSegment(b *strings.Builder, tok string, index bool) {
	switch {
	case index:
		b.WriteString("[" + tok + "]")
	case plainKey(tok):
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	default:
		b.WriteString("[" + quote(tok) + "]")
	}
}

func plainKey(s string) bool {
	if s == "" || len(s) > 80 {
		return false
	}
	for i, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// kib renders a byte bound for messages: 1 KiB, 48 KiB, 1 MiB.
func kib(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// kindWord names the kind of a JSON value as the messages of a mistyped
// value say it: "string", "number", "bool", "object", "array" (or, with
// article, "a string", "an object").
func kindWord(k jsontext.Kind, article bool) string {
	var w string
	switch k {
	case '"':
		w = "string"
	case '0':
		w = "number"
	case 't', 'f':
		w = "bool"
		if article {
			return "a boolean"
		}
	case '{':
		w = "object"
	case '[':
		w = "array"
	case 'n':
		return "null"
	default:
		w = "value"
	}
	if !article {
		return w
	}
	if w == "object" || w == "array" {
		return "an " + w
	}
	return "a " + w
}
