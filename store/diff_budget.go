package store

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/hubsnap/hubsnap/store/answer"
)

// The bounds of a schema_diff answer. Every entry (an added, removed or
// changed table or logic) counts toward the limit, and the answer's bytes
// toward diffBytes: an entry that does not fit is left out, with "more".
// A changed table or logic too big for the room left is given in part,
// its own lists cut, with its own "more", so that even a huge change
// shows. Long texts (SQL, descriptions, comments, defaults) are cut to the
// part around what changed, the cuts marked "…": a answer.TextChange says so
// with "cut". Nothing of this applies to a Whole diff.

// diffBytes is the most bytes of entries in an answer of limit entries:
// 60,000 at the default limit (so the answer stays under 64 KiB), more in
// proportion to a higher limit.
func diffBytes(limit int) int {
	return 60_000 * max(limit, DefaultDiffLimit) / DefaultDiffLimit
}

// Text bounds: the most bytes of a text's two sides together before it is
// cut around the change.
const (
	sqlExcerpt     = 4_000
	textExcerpt    = 2_000
	columnExcerpt  = 1_000
	excerptContext = 80 // bytes kept before and after the change
)

// diffWriter builds a diff answer within its bounds.
type diffWriter struct {
	ans     answer.DiffOutput
	from    int64 // the releases' row ids
	to      int64
	limit   int // -1 for none
	whole   bool
	room    int        // bytes left
	n       int        // entries given
	stopped bool       // an entry was left out: no more are given
	broken  brokenPart // diff_broken.go
}

func newDiffWriter(from, to diffRelease, limit int, whole bool) *diffWriter {
	return &diffWriter{ans: answer.DiffOutput{From: from.ref, To: to.ref}, from: from.row, to: to.row, limit: limit, whole: whole, room: diffBytes(limit)}
}

// queryLimit is the LIMIT of an entries query: one more than the entries
// still allowed, to know whether there are more.
func (d *diffWriter) queryLimit() int {
	if d.limit < 0 {
		return -1
	}
	return d.limit - d.n + 1
}

// full reports whether the limit is reached, marking the answer cut.
func (d *diffWriter) full() bool {
	if d.stopped || (d.limit >= 0 && d.n >= d.limit) {
		d.stopped, d.ans.More = true, true
		return true
	}
	return false
}

// fits takes the room for v, if there is enough.
func (d *diffWriter) fits(v any) bool {
	if d.whole {
		d.n++
		return true
	}
	size := jsonSize(v) + 1
	if size > d.room {
		d.stopped, d.ans.More = true, true
		return false
	}
	d.room -= size
	d.n++
	return true
}

func (d *diffWriter) tables(ctx context.Context, tx readTx) error {
	d.ans.Tables = &answer.TablesDiff{}
	if d.stopped {
		return nil
	}
	es, err := entries(ctx, tx, qDiffTables, true, d.from, d.to, d.queryLimit())
	if err != nil {
		return err
	}
	byID, err := docs[tableDoc](ctx, tx, qDiffTableDocs, es)
	if err != nil {
		return err
	}
	t := d.ans.Tables
	for _, e := range es {
		if d.full() {
			return nil
		}
		ref := answer.TableRef{Name: e.name, Connection: e.connection}
		switch {
		case e.from == 0 && d.fits(ref):
			t.Added = append(t.Added, ref)
		case e.to == 0 && d.fits(ref):
			t.Removed = append(t.Removed, ref)
		case e.from != 0 && e.to != 0:
			c := compareTables(e.name, e.connection, byID[e.from], byID[e.to])
			if c == nil {
				continue
			}
			if !d.whole {
				excerptTable(c)
			}
			if d.fits(c) {
				t.Changed = append(t.Changed, *c)
			} else if part := shrinkTable(c, d.room); part != nil {
				t.Changed = append(t.Changed, *part)
			}
		}
	}
	return nil
}

func (d *diffWriter) logics(ctx context.Context, tx readTx) error {
	d.ans.Logics = &answer.LogicsDiff{}
	if d.stopped {
		return nil
	}
	es, err := entries(ctx, tx, qDiffLogics, false, d.from, d.to, d.queryLimit())
	if err != nil {
		return err
	}
	byID, err := docs[logicDoc](ctx, tx, qDiffLogicDocs, es)
	if err != nil {
		return err
	}
	l := d.ans.Logics
	for _, e := range es {
		if d.full() {
			return nil
		}
		switch {
		case e.from == 0 && d.fits(e.name):
			l.Added = append(l.Added, e.name)
		case e.to == 0 && d.fits(e.name):
			l.Removed = append(l.Removed, e.name)
		case e.from != 0 && e.to != 0:
			c := compareLogics(e.name, byID[e.from], byID[e.to])
			if c == nil {
				continue
			}
			if !d.whole {
				excerptLogic(c)
			}
			if d.fits(c) {
				l.Changed = append(l.Changed, *c)
			} else if part := shrinkLogic(c, d.room); part != nil {
				l.Changed = append(l.Changed, *part)
			}
		}
	}
	return nil
}

func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil { // the answer's types always marshal
		panic(err)
	}
	return len(b)
}

// shrinkTable returns as much of c as fits in room bytes, marked More, or
// nil when not even its name does.
func shrinkTable(c *answer.TableChange, room int) *answer.TableChange {
	out := &answer.TableChange{Name: c.Name, Connection: c.Connection, Comment: c.Comment, PrimaryKey: c.PrimaryKey, More: true}
	size := jsonSize(out) + 1
	if size > room {
		return nil
	}
	cols, fks, ixs := &answer.ColumnsDiff{}, &answer.ForeignKeysDiff{}, &answer.IndexesDiff{}
	var items []listItem
	if c.Columns != nil {
		items = appendItems(items, c.Columns.Added, &cols.Added)
		items = appendItems(items, c.Columns.Removed, &cols.Removed)
		items = appendItems(items, c.Columns.Changed, &cols.Changed)
	}
	if c.ForeignKeys != nil {
		items = appendItems(items, c.ForeignKeys.Added, &fks.Added)
		items = appendItems(items, c.ForeignKeys.Removed, &fks.Removed)
	}
	if c.Indexes != nil {
		items = appendItems(items, c.Indexes.Added, &ixs.Added)
		items = appendItems(items, c.Indexes.Removed, &ixs.Removed)
	}
	take(items, room-size)
	if cols.Added != nil || cols.Removed != nil || cols.Changed != nil {
		out.Columns = cols
	}
	if fks.Added != nil || fks.Removed != nil {
		out.ForeignKeys = fks
	}
	if ixs.Added != nil || ixs.Removed != nil {
		out.Indexes = ixs
	}
	return out
}

// shrinkLogic is shrinkTable for a logic: its params are cut.
func shrinkLogic(c *answer.LogicChange, room int) *answer.LogicChange {
	out := *c
	out.Params, out.More = nil, true
	size := jsonSize(&out) + 1
	if size > room {
		return nil
	}
	if c.Params != nil {
		p := &answer.ParamsDiff{}
		var items []listItem
		items = appendItems(items, c.Params.Added, &p.Added)
		items = appendItems(items, c.Params.Removed, &p.Removed)
		items = appendItems(items, c.Params.Changed, &p.Changed)
		if take(items, room-size) > 0 {
			out.Params = p
		}
	}
	return &out
}

// A listItem is one element of a list of a change, and how to add it to
// the cut-down copy.
type listItem struct {
	size  int // its JSON, and the list's own key and brackets when it is the first
	apply func()
}

func appendItems[T any](items []listItem, from []T, to *[]T) []listItem {
	for i, v := range from {
		size := jsonSize(v) + 1
		if i == 0 {
			size += 40 // "columns":{"added":[ ... ]}
		}
		items = append(items, listItem{size, func() { *to = append(*to, v) }})
	}
	return items
}

// take applies items in order while they fit in room, and returns how
// many it applied.
func take(items []listItem, room int) int {
	for i, it := range items {
		if it.size > room {
			return i
		}
		room -= it.size
		it.apply()
	}
	return len(items)
}

// excerptTable cuts the long texts of a table change.
func excerptTable(c *answer.TableChange) {
	if c.Comment != nil {
		excerptText(c.Comment, textExcerpt)
	}
	if c.Columns == nil {
		return
	}
	for i := range c.Columns.Changed {
		from, to := &c.Columns.Changed[i].From, &c.Columns.Changed[i].To
		for _, pair := range [][2]**string{{&from.Default, &to.Default}, {&from.Comment, &to.Comment}} {
			if *pair[0] != nil {
				a, b, _ := changeExcerpt(**pair[0], **pair[1], columnExcerpt)
				*pair[0], *pair[1] = &a, &b
			}
		}
	}
}

// excerptLogic cuts the long texts of a logic change.
func excerptLogic(c *answer.LogicChange) {
	if c.SQL != nil {
		excerptText(c.SQL, sqlExcerpt)
	}
	if c.Description != nil {
		excerptText(c.Description, textExcerpt)
	}
}

// excerptText cuts a long text change around what changed.
func excerptText(t *answer.TextChange, limit int) {
	t.From, t.To, t.Cut = changeExcerpt(t.From, t.To, limit)
}

// changeExcerpt returns a and b whole when they are at most limit bytes
// together; else the part of each where they differ, with excerptContext
// bytes (at most limit/8) of what they share on either side, each at most
// limit/2 bytes, every cut marked "…".
func changeExcerpt(a, b string, limit int) (string, string, bool) {
	if len(a)+len(b) <= limit {
		return a, b, false
	}
	p := 0 // common prefix
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0 // common suffix, not overlapping the prefix
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	context := min(excerptContext, limit/8)
	start := runeStart(a, max(0, p-context))
	cut := func(x string) string {
		end := runeStart(x, min(len(x), len(x)-s+context))
		out := x[start:end]
		if len(out) > limit/2 {
			out = out[:runeStart(out, limit/2)] + "…"
		} else if end < len(x) {
			out += "…"
		}
		if start > 0 {
			out = "…" + out
		}
		return out
	}
	return cut(a), cut(b), true
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
