package storetest

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// A Shape is a kind of release that puts its weight on one part of an
// import, each at a bound of the snapshot format: what the memory tests
// import at a few hundred MiB. The documents are generated, never
// committed.
type Shape string

// The shapes WriteShape writes.
const (
	// ShapeTables is many small tables (about 250 bytes each): per-table
	// costs.
	ShapeTables Shape = "tables"
	// ShapeWide is few tables of 4,096 columns each.
	ShapeWide Shape = "wide"
	// ShapeLogics is logics with 47 KiB of SQL each (the bound is 48),
	// whose identifiers are mostly distinct words.
	ShapeLogics Shape = "logics"
	// ShapeKeys is tables of 256 foreign keys each, almost all to tables
	// further on in the document.
	ShapeKeys Shape = "keys"
	// ShapeComments is tables whose comment and column comments are 16 KiB
	// of prose (the bound), of millions of distinct words.
	ShapeComments Shape = "comments"
	// ShapeEnums is columns of 1,000 enum values (the bound).
	ShapeEnums Shape = "enums"
	// ShapeIndexes is tables of 1,024 indexes each.
	ShapeIndexes Shape = "indexes"
)

// Shapes lists every shape.
var Shapes = []Shape{ShapeTables, ShapeWide, ShapeLogics, ShapeKeys, ShapeComments, ShapeEnums, ShapeIndexes}

// Written says what WriteShape wrote.
type Written struct {
	Bytes          int64
	Tables, Logics int
}

// WriteShape writes a snapshot document of the given shape and of about
// size bytes (within one table or logic of it) to w, one table or logic
// at a time. The same shape and size always give the same document:
// release rel_<shape> of project "big", environment "dev".
func WriteShape(w io.Writer, shape Shape, size int64) (Written, error) {
	g, ok := shapeGens[shape]
	if !ok {
		return Written{}, fmt.Errorf("storetest: unknown shape %q", shape)
	}
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	s := &shapeDoc{rng: rand.New(rand.NewPCG(5, 6))}
	// The number of items the size holds, from the size of the second
	// (the first may lack a foreign key).
	s.item(g, 1)
	per := int64(len(s.buf))
	n := max(int(size/max(per, 1)), 1)
	s.n = n
	fmt.Fprintf(bw, `{"formatVersion":1,"release":{"id":"rel_%s","project":"big","environment":"dev","version":1,`+
		`"createdAt":"2026-11-01T10:00:00Z"},"connections":[{"name":"main","engine":"postgres"}],"%s":[`, shape, g.list)
	s.rng = rand.New(rand.NewPCG(5, 6))
	for i := range n {
		if i > 0 {
			bw.WriteByte(',')
		}
		s.item(g, i)
		if _, err := bw.Write(s.buf); err != nil {
			return Written{}, err
		}
	}
	bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil {
		return Written{}, err
	}
	out := Written{Bytes: cw.n, Tables: n}
	if g.list == "logics" {
		out.Tables, out.Logics = 0, n
	}
	return out, nil
}

// countWriter counts what goes through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// shapeDoc is the state of one WriteShape: the item being written.
type shapeDoc struct {
	rng *rand.Rand
	n   int // items in the document
	buf []byte
}

// shapeGen writes item i of a shape into s.buf.
type shapeGen struct {
	list string // "tables" or "logics"
	item func(s *shapeDoc, i int)
}

func (s *shapeDoc) item(g shapeGen, i int) {
	s.buf = s.buf[:0]
	g.item(s, i)
}

var shapeGens = map[Shape]shapeGen{
	ShapeTables: {"tables", func(s *shapeDoc, i int) {
		s.tableStart(i, "crm", "Customers of one tenant, by region")
		s.col("id", "bigint", false, "", "")
		s.col("name", "text", true, "Display name", "")
		s.col("parent_id", "bigint", true, "", "")
		s.tableEnd([]string{"id"}, func() {
			if i > 0 {
				s.fk("parent_fk", "parent_id", tableName2(i/2), "id")
			}
		}, nil)
	}},
	ShapeWide: {"tables", func(s *shapeDoc, i int) {
		s.tableStart(i, "wide", "A table of every measure")
		for c := range 4096 {
			comment := ""
			if c%4 == 0 {
				comment = "Measure " + strconv.Itoa(c) + " of the " + s.word() + " sensor"
			}
			s.col("m"+strconv.Itoa(c)+"_"+s.word(), colTypes[c%len(colTypes)], c%3 == 0, comment, "")
		}
		s.tableEnd(nil, nil, nil)
	}},
	ShapeLogics: {"logics", func(s *shapeDoc, i int) {
		s.buf = fmt.Appendf(s.buf, `{"name":"reports/q_%06d","description":"Report %d: `, i, i)
		s.prose(200)
		s.buf = append(s.buf, `","sql":"SELECT `...)
		for len(s.buf) < 47<<10 {
			s.buf = append(s.buf, 't')
			s.buf = strconv.AppendInt(s.buf, int64(s.rng.IntN(1000)), 10)
			s.buf = append(s.buf, '.')
			s.buf = append(s.buf, s.word()...)
			s.buf = append(s.buf, "_"...)
			s.buf = append(s.buf, s.word()...)
			s.buf = append(s.buf, ", "...)
		}
		s.buf = append(s.buf, `1 FROM t1 WHERE tenant_id = :tenant_id","params":[{"name":"tenant_id","type":"string","required":true}],`+
			`"auth":{"required":true,"roles":["admin"]}}`...)
	}},
	ShapeKeys: {"tables", func(s *shapeDoc, i int) {
		s.tableStart(i, "keys", "")
		s.col("id", "bigint", false, "", "")
		for k := range 256 {
			s.col("r"+strconv.Itoa(k), "bigint", true, "", "")
		}
		s.tableEnd([]string{"id"}, func() {
			for k := range 256 {
				// Mostly tables further on, which the decoder has not seen.
				ref := tableName2((i + 1 + k*7919) % max(s.n, 1))
				s.fk("fk_"+strconv.Itoa(k), "r"+strconv.Itoa(k), ref, "id")
			}
		}, nil)
	}},
	ShapeComments: {"tables", func(s *shapeDoc, i int) {
		s.buf = fmt.Appendf(s.buf, `{"name":"%s","comment":"`, tableName2(i))
		s.prose(16 << 10)
		s.buf = append(s.buf, `","columns":[`...)
		for c := range 12 {
			if c > 0 {
				s.buf = append(s.buf, ',')
			}
			s.buf = fmt.Appendf(s.buf, `{"name":"c%d","type":"text","nullable":true,"comment":"`, c)
			s.prose(16 << 10)
			s.buf = append(s.buf, `"}`...)
		}
		s.buf = append(s.buf, `]}`...)
	}},
	ShapeEnums: {"tables", func(s *shapeDoc, i int) {
		s.tableStart(i, "enums", "Lookups")
		s.col("id", "bigint", false, "", "")
		for c := range 16 {
			s.col("state"+strconv.Itoa(c), "text", true, "", "enum")
		}
		s.tableEnd([]string{"id"}, nil, nil)
	}},
	ShapeIndexes: {"tables", func(s *shapeDoc, i int) {
		s.tableStart(i, "indexes", "Indexed every way")
		for c := range 64 {
			s.col("c"+strconv.Itoa(c), "bigint", true, "", "")
		}
		s.tableEnd(nil, nil, func() {
			for k := range 1024 {
				if k > 0 {
					s.buf = append(s.buf, ',')
				}
				a, b := s.rng.IntN(64), s.rng.IntN(64)
				for b == a {
					b = s.rng.IntN(64)
				}
				s.buf = fmt.Appendf(s.buf, `{"name":"%s_ix_%d","columns":["c%d","c%d"],"unique":%t}`,
					tableName2(i), k, a, b, k%5 == 0)
			}
		})
	}},
}

var colTypes = []string{"bigint", "text", "numeric(12,2)", "timestamptz", "boolean", "jsonb"}

// tableName2 names table i of a shape.
func tableName2(i int) string { return fmt.Sprintf("t%07d", i) }

func (s *shapeDoc) tableStart(i int, area, comment string) {
	s.buf = fmt.Appendf(s.buf, `{"name":"%s"`, tableName2(i))
	if comment != "" {
		s.buf = fmt.Appendf(s.buf, `,"comment":"%s of %s"`, comment, area)
	}
	s.buf = append(s.buf, `,"columns":[`...)
}

// col adds a column; enum "enum" gives it 1,000 values.
func (s *shapeDoc) col(name, typ string, nullable bool, comment, enum string) {
	if s.buf[len(s.buf)-1] != '[' {
		s.buf = append(s.buf, ',')
	}
	s.buf = fmt.Appendf(s.buf, `{"name":"%s","type":"%s","nullable":%t`, name, typ, nullable)
	if comment != "" {
		s.buf = fmt.Appendf(s.buf, `,"comment":"%s"`, comment)
	}
	if enum != "" {
		s.buf = append(s.buf, `,"enum":[`...)
		for v := range 1000 {
			if v > 0 {
				s.buf = append(s.buf, ',')
			}
			s.buf = fmt.Appendf(s.buf, `"%s_%d"`, s.word(), v)
		}
		s.buf = append(s.buf, ']')
	}
	s.buf = append(s.buf, '}')
}

// tableEnd closes the columns and writes the key, the foreign keys and the
// indexes (each list written by its function, when not nil).
func (s *shapeDoc) tableEnd(pk []string, fks, indexes func()) {
	s.buf = append(s.buf, ']')
	if len(pk) > 0 {
		s.buf = fmt.Appendf(s.buf, `,"primaryKey":["%s"]`, pk[0])
	}
	if fks != nil {
		s.buf = append(s.buf, `,"foreignKeys":[`...)
		fks()
		s.buf = append(s.buf, ']')
	}
	if indexes != nil {
		s.buf = append(s.buf, `,"indexes":[`...)
		indexes()
		s.buf = append(s.buf, ']')
	}
	s.buf = append(s.buf, '}')
}

func (s *shapeDoc) fk(name, col, table, refCol string) {
	if s.buf[len(s.buf)-1] != '[' {
		s.buf = append(s.buf, ',')
	}
	s.buf = fmt.Appendf(s.buf, `{"name":"%s","columns":["%s"],"references":{"table":"%s","columns":["%s"]},"onDelete":"cascade"}`,
		name, col, table, refCol)
}

// syllables make the words of prose and identifiers: 2 to 4 of 64, so
// millions of distinct words.
var syllables = []string{
	"ba", "be", "bi", "bo", "da", "de", "di", "do", "ka", "ke", "ki", "ko", "la", "le", "li", "lo",
	"ma", "me", "mi", "mo", "na", "ne", "ni", "no", "pa", "pe", "pi", "po", "ra", "re", "ri", "ro",
	"sa", "se", "si", "so", "ta", "te", "ti", "to", "va", "ve", "vi", "vo", "za", "ze", "zi", "zo",
	"bar", "ker", "lin", "mos", "nut", "pex", "ral", "sun", "tor", "vik", "wen", "yal", "zor", "fen", "gil", "hum",
}

// word returns a pseudo-word.
func (s *shapeDoc) word() string {
	var b [12]byte
	w := b[:0]
	for range 2 + s.rng.IntN(3) {
		w = append(w, syllables[s.rng.IntN(len(syllables))]...)
	}
	return string(w)
}

// prose appends about n bytes of words, a third of them common ones.
func (s *shapeDoc) prose(n int) {
	start := len(s.buf)
	for len(s.buf)-start < n-16 {
		if len(s.buf) > start {
			s.buf = append(s.buf, ' ')
		}
		if s.rng.IntN(3) == 0 {
			s.buf = append(s.buf, common[s.rng.IntN(len(common))]...)
		} else {
			s.buf = append(s.buf, s.word()...)
		}
	}
}

var common = []string{"the", "of", "a", "row", "is", "for", "when", "and", "user", "order", "value", "status"}
