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

// wordSpans splits s into words the way search sees identifiers and prose.
// A word is a run of letters and digits (combining marks included). It is
// also split:
//   - where a lower-case letter or a digit meets an upper-case one:
//     "display_name", "displayName" and "display name" are all "display"
//     and "name", and "v2Api" is "v2" and "api";
//   - before the last letter of an upper-case run that a lower-case word
//     follows: "HTTPServer" is "http" and "server", but a plural "s" stays
//     ("userIDs" is "user" and "ids");
//   - where letters with case meet letters without (Hangul, kana, CJK):
//     "회원ID" is "회원" and "id", while "회원정보" stays one word.
//
// Words are lower-cased.
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
		if unicode.IsMark(r) && start >= 0 {
			continue // a combining accent belongs to its letter
		}
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) {
			add(i)
			prev = r
			continue
		}
		if start >= 0 && splitsBefore(prev, r, s[i+utf8.RuneLen(r):]) {
			add(i)
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	add(len(s))
	return out
}

// splitsBefore tells whether a word ends between prev and r, both letters
// or digits; rest is what follows r. See wordSpans.
func splitsBefore(prev, r rune, rest string) bool {
	cased := func(c rune) bool { return unicode.IsUpper(c) || unicode.IsLower(c) }
	switch {
	case unicode.IsLetter(prev) && unicode.IsLetter(r) && cased(prev) != cased(r):
		return true // 회원ID
	case !unicode.IsUpper(r):
		return false
	case unicode.IsLower(prev) || unicode.IsNumber(prev):
		return true // displayName, v2Api
	case unicode.IsUpper(prev):
		// HTTPServer: "S" starts a word when a lower-case word follows,
		// but not a lone plural "s" (IDs, userIDs, URLs).
		lower := 0
		for _, c := range rest {
			if !unicode.IsLower(c) {
				break
			}
			lower++
		}
		next, _ := utf8.DecodeRuneInString(rest)
		return lower > 1 || (lower == 1 && next != 's')
	}
	return false
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
