package pgoracle

import "strconv"

// Placeholder is one :name in a logic's SQL.
type Placeholder struct {
	Name string
	// Pos is the 1-based character offset of the colon in the SQL.
	Pos int
	// N is the $n it becomes: distinct names are numbered in order of
	// first appearance.
	N int
}

// Rewritten is a logic's SQL with :name placeholders turned into $n, as
// PostgreSQL's Parse takes it.
type Rewritten struct {
	SQL          string
	Names        []string // Names[n-1] is the name of $n
	Placeholders []Placeholder
	// orig[i] is the 0-based character offset in the logic's SQL of the
	// i-th character of SQL.
	orig []int
}

// Rewrite turns every :name of sql into $n. It skips :: casts and what
// is inside string literals (also E” strings), quoted identifiers,
// comments (nested block comments too) and dollar-quoted bodies. It is the
// simple rewriting the corpus needs, not hubsnap's: an array slice
// a[1:n] would be read as a placeholder, so the corpus has none.
func Rewrite(sql string) *Rewritten {
	src := []rune(sql)
	r := &Rewritten{}
	var out []rune
	number := map[string]int{}
	emit := func(from, to int) { // copy src[from:to]
		for i := from; i < to; i++ {
			out = append(out, src[i])
			r.orig = append(r.orig, i)
		}
	}
	i := 0
	for i < len(src) {
		c := src[i]
		next := rune(0)
		if i+1 < len(src) {
			next = src[i+1]
		}
		switch {
		case c == '\'':
			escapes := i > 0 && (src[i-1] == 'E' || src[i-1] == 'e') && (i < 2 || !isIdentRune(src[i-2]))
			j := i + 1
			for j < len(src) {
				if escapes && src[j] == '\\' {
					j += 2
					continue
				}
				if src[j] == '\'' {
					if j+1 < len(src) && src[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			emit(i, min(j+1, len(src)))
			i = j + 1
		case c == '"':
			j := i + 1
			for j < len(src) && !(src[j] == '"' && (j+1 >= len(src) || src[j+1] != '"')) {
				if src[j] == '"' {
					j++
				}
				j++
			}
			emit(i, min(j+1, len(src)))
			i = j + 1
		case c == '-' && next == '-':
			j := i
			for j < len(src) && src[j] != '\n' {
				j++
			}
			emit(i, j)
			i = j
		case c == '/' && next == '*':
			depth, j := 0, i
			for j < len(src) {
				if src[j] == '/' && j+1 < len(src) && src[j+1] == '*' {
					depth++
					j += 2
					continue
				}
				if src[j] == '*' && j+1 < len(src) && src[j+1] == '/' {
					depth--
					j += 2
					if depth == 0 {
						break
					}
					continue
				}
				j++
			}
			emit(i, min(j, len(src)))
			i = j
		case c == '$' && (i == 0 || !isIdentRune(src[i-1])) && dollarTag(src[i:]) != "":
			tag := []rune(dollarTag(src[i:]))
			end := len(src)
			for j := i + len(tag); j+len(tag) <= len(src); j++ {
				if string(src[j:j+len(tag)]) == string(tag) {
					end = j + len(tag)
					break
				}
			}
			emit(i, end)
			i = end
		case c == ':' && next == ':':
			emit(i, i+2)
			i += 2
		case c == ':' && isIdentStart(next):
			j := i + 1
			for j < len(src) && isIdentRune(src[j]) {
				j++
			}
			name := string(src[i+1 : j])
			n, ok := number[name]
			if !ok {
				r.Names = append(r.Names, name)
				n = len(r.Names)
				number[name] = n
			}
			r.Placeholders = append(r.Placeholders, Placeholder{Name: name, Pos: i + 1, N: n})
			for _, d := range "$" + strconv.Itoa(n) {
				out = append(out, d)
				r.orig = append(r.orig, i)
			}
			i = j
		default:
			emit(i, i+1)
			i++
		}
	}
	r.SQL = string(out)
	return r
}

// OriginalPos maps a 1-based character position in the rewritten SQL (as
// in PostgreSQL's error position) to the logic's SQL; 0 stays 0. A
// position inside a $n is the position of its :name.
func (r *Rewritten) OriginalPos(pos int) int {
	switch {
	case pos <= 0:
		return 0
	case pos > len(r.orig):
		if len(r.orig) == 0 {
			return pos
		}
		return r.orig[len(r.orig)-1] + 1 + (pos - len(r.orig))
	}
	return r.orig[pos-1] + 1
}

// PlaceholderAt returns the placeholder whose :name covers the 1-based
// character position pos of the logic's SQL, if any.
func (r *Rewritten) PlaceholderAt(pos int) (Placeholder, bool) {
	for _, p := range r.Placeholders {
		if pos >= p.Pos && pos <= p.Pos+len([]rune(p.Name)) {
			return p, true
		}
	}
	return Placeholder{}, false
}

// dollarTag returns the opening tag ($$ or $tag$) that src starts with, or
// "" when src does not start a dollar quote ($1 is a parameter).
func dollarTag(src []rune) string {
	if len(src) < 2 || src[0] != '$' {
		return ""
	}
	j := 1
	if isIdentStart(src[j]) {
		for j < len(src) && isIdentRune(src[j]) && src[j] != '$' {
			j++
		}
	}
	if j < len(src) && src[j] == '$' {
		return string(src[:j+1])
	}
	return ""
}

func isIdentStart(c rune) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentRune(c rune) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}
