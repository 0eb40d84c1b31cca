package snapshot

import (
	"regexp"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

// decForms returns data without blank space and data indented, or false
// when data is not one JSON value (duplicate keys and invalid UTF-8 aside:
// the decoder must reject those the same way in both forms).
func decForms(data []byte) (compact, indented []byte, ok bool) {
	if !jsontext.Value(data).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		return nil, nil, false
	}
	depth := 0
	newline := func() {
		indented = append(indented, '\n')
		indented = append(indented, strings.Repeat("  ", depth)...)
	}
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			compact, indented = append(compact, c), append(indented, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		case c == '}' || c == ']':
			depth--
			newline()
		}
		compact, indented = append(compact, c), append(indented, c)
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			newline()
		case ',':
			newline()
		case ':':
			indented = append(indented, ' ')
		}
	}
	return compact, indented, true
}

var decPosition = regexp.MustCompile(` ?\(?(at )?line \d+, column \d+\)?`)

// decCheckForms checks that data decodes the same, or fails with the same
// problems at the same paths, compact and indented.
func decCheckForms(t *testing.T, data []byte) {
	compact, indented, ok := decForms(data)
	if !ok {
		return
	}
	decode := func(doc []byte) (*Snapshot, []string) {
		snap, err := Decode(doc)
		if err == nil {
			return snap, nil
		}
		serr, ok := err.(*Error)
		if !ok {
			t.Fatalf("Decode error is %T (%v), want *Error", err, err)
		}
		var problems []string
		for _, p := range serr.Problems {
			problems = append(problems, decPosition.ReplaceAllString(p, ""))
		}
		return nil, problems
	}
	s1, p1 := decode(compact)
	s2, p2 := decode(indented)
	if diff := cmp.Diff(p1, p2); diff != "" {
		t.Fatalf("problems differ (-compact +indented):\n%s\ncompact:\n%s\nindented:\n%s", diff, compact, indented)
	}
	if diff := cmp.Diff(s1, s2); diff != "" {
		t.Fatalf("snapshots differ (-compact +indented):\n%s", diff)
	}
}

func TestDecodeForms(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		decPlanted,
		`{"formatVersion":1,"release":{"id":"r","version":1e20},"tables":[{"name":"a","columns":[{"name":"x"},{"name":"y","nullable":"yes"}]}]}`,
		`{"formatVersion":1,"tables":[{"name":"a","name":"b"}]}`,
		"{\"formatVersion\":1,\"tables\":[{\"name\":\"a\",\"comment\":\"\xff\"}]}",
	} {
		if _, _, ok := decForms([]byte(doc)); !ok {
			t.Errorf("not one JSON value: %s", doc)
		}
		decCheckForms(t, []byte(doc))
	}
}
