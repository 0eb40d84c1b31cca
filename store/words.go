package store

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is one word of a text: where it is, and its lower-case form.
type span struct {
	start, end int // byte offsets in the text
	word       string
}

// wordSpans splits s into words the way search sees identifiers and prose:
// a word is a run of letters and digits, and a run of letters is also split
// where a lower-case letter meets an upper-case one, so "display_name",
// "displayName" and "display name" are all the words "display" and "name".
// An upper-case run followed by a lower-case letter ends one letter early:
// "HTTPServer" is "http" and "server". Letters without case (Hangul, kana,
// CJK) only split at non-letters: "회원정보" is one word.
func wordSpans(s string) []span {
	var out []span
	start := -1
	var prev rune
	add := func(end int) {
		if start >= 0 {
			out = append(out, span{start, end, strings.ToLower(s[start:end])})
			start = -1
		}
	}
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) {
			add(i)
			prev = r
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			if unicode.IsLower(prev) {
				add(i) // displayName: a new word at N
			} else if unicode.IsUpper(prev) {
				// HTTPServer: the S starts "server" when a lower-case
				// letter follows it.
				if next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):]); unicode.IsLower(next) {
					add(i)
				}
			}
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	add(len(s))
	return out
}

// words returns the lower-case words of s; see wordSpans.
func words(s string) []string {
	spans := wordSpans(s)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = sp.word
	}
	return out
}
