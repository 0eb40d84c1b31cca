package snapshot

import (
	"fmt"
	"strings"
)

// seg is one step of a path: a key, or an index when key is "".
type seg struct {
	key   string
	index int
}

func (d *decoder) push(key string) { d.path = append(d.path, seg{key: key}) }
func (d *decoder) pushIndex(i int) { d.path = append(d.path, seg{index: i}) }
func (d *decoder) pop()            { d.path = d.path[:len(d.path)-1] }

// here renders the path of the value being read, followed by rel: a key
// ("name"), an index ("[2]") or both ("columns[2].name").
func (d *decoder) here(rel string) string {
	var b strings.Builder
	for _, s := range d.path {
		if s.key == "" {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	if rel != "" && rel[0] != '[' && b.Len() > 0 {
		b.WriteByte('.')
	}
	b.WriteString(rel)
	return b.String()
}

// add records a problem at the path of the value being read, followed by
// rel.
func (d *decoder) add(rel, format string, args ...any) {
	d.addAt(d.here(rel), format, args...)
}

// addAt records a problem at path.
func (d *decoder) addAt(path, format string, args ...any) {
	d.failed = true
	if len(d.problems) >= maxProblems {
		d.more = true
		return
	}
	d.problems = append(d.problems, path+": "+fmt.Sprintf(format, args...))
}

// invalid records a problem found while reading the current part: the
// part's checks that span its fields are skipped, so one mistake is not
// reported again as others.
func (d *decoder) invalid(rel, format string, args ...any) {
	d.bad = true
	d.add(rel, format, args...)
}
