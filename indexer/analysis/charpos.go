package analysis

import "unicode/utf8"

// charIndex turns byte offsets of a text into 1-based character offsets,
// the unit of a problem's position, without counting from the start of the
// text each time: a logic of 48 KiB can have thousands of problems, and
// counting from the start for each made its analysis quadratic in the
// SQL's size (a third of the time of importing such logics).
type charIndex struct {
	s string
	// marks holds, for every charStep-th byte, the first character that
	// starts at or after it, as `for i := range s` finds them: counting
	// on from one gives the count from the start, invalid bytes included.
	marks []charMark
}

// charMark is a character's byte offset and the characters before it.
type charMark struct{ off, count int }

// charStep is the distance in bytes between two marks.
const charStep = 512

func newCharIndex(s string) *charIndex {
	x := &charIndex{s: s, marks: make([]charMark, 0, len(s)/charStep+1)}
	n := 0
	for i := range s {
		for len(x.marks)*charStep <= i {
			x.marks = append(x.marks, charMark{i, n})
		}
		n++
	}
	return x
}

// position is the 1-based character offset of byte offset off, which is
// clamped to the text: utf8.RuneCountInString(s[:off]) + 1.
func (x *charIndex) position(off int) int {
	off = min(max(off, 0), len(x.s))
	k := min(off/charStep, len(x.marks)-1)
	if k < 0 {
		return 1 // an empty text
	}
	for k > 0 && x.marks[k].off > off {
		k-- // off is inside the character the mark names
	}
	m := x.marks[k]
	return m.count + utf8.RuneCountInString(x.s[m.off:off]) + 1
}
