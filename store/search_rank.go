package store

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// How a search's words match and its hits rank: a term as a prefix or a
// whole word, the order of hits, and the excerpt a hit shows.

// isPrefix tells whether term matches as a prefix of words, rather than
// only as a whole word; see minPrefix.
func isPrefix(term string) bool {
	if len(term) >= minPrefix {
		return true
	}
	for _, r := range term {
		if r >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// matches tells whether word matches term; see isPrefix.
func matches(word, term string) bool {
	if isPrefix(term) {
		return strings.HasPrefix(word, term)
	}
	return word == term
}

// covers tells whether every term is a prefix of a word in fields.
func covers(terms []string, fields ...[]string) bool {
	for _, t := range terms {
		if !anyPrefix([]string{t}, fields...) {
			return false
		}
	}
	return true
}

// anyPrefix tells whether some term is a prefix of some word in fields.
func anyPrefix(terms []string, fields ...[]string) bool {
	for _, f := range fields {
		for _, w := range f {
			for _, t := range terms {
				if matches(w, t) {
					return true
				}
			}
		}
	}
	return false
}

// exact counts the terms that are whole words of name.
func exact(terms, name []string) int {
	n := 0
	for _, t := range terms {
		if slices.Contains(name, t) {
			n++
		}
	}
	return n
}

// compareHits orders hits best first; see Store.Search.
func compareHits(a, b rankedHit) int {
	return cmp.Or(
		cmp.Compare(a.step, b.step),
		-cmp.Compare(a.exact, b.exact),
		cmp.Compare(a.words, b.words),
		cmp.Compare(slices.Index(Kinds, a.Kind), slices.Index(Kinds, b.Kind)),
		cmp.Compare(a.Connection, b.Connection),
		cmp.Compare(a.Table, b.Table),
		cmp.Compare(a.Column, b.Column),
		cmp.Compare(a.Logic, b.Logic),
	)
}

// excerpt returns text, or about excerptRunes of it around the first word
// a term matches, cut at spaces, with its white space collapsed.
func excerpt(text string, terms []string) string {
	text = strings.Join(strings.Fields(text), " ")
	rs := []rune(text)
	if len(rs) <= excerptRunes {
		return text
	}
	at := 0 // the match, in runes
	for _, sp := range wordSpans(text) {
		if anyPrefix(terms, []string{sp.word}) {
			at = utf8.RuneCountInString(text[:sp.start])
			break
		}
	}
	// A few words before the match, the rest after; near the end, fill
	// the window backwards.
	start := min(max(0, at-excerptRunes/4), len(rs)-excerptRunes)
	end := start + excerptRunes
	if start > 0 {
		if i := slices.Index(rs[start:at], ' '); i >= 0 {
			start += i + 1
		}
	}
	if end < len(rs) {
		if i := lastIndex(rs[at:end], ' '); i > 0 {
			end = at + i
		}
	}
	out := string(rs[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(rs) {
		out += "…"
	}
	return out
}

func lastIndex(rs []rune, r rune) int {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i] == r {
			return i
		}
	}
	return -1
}
