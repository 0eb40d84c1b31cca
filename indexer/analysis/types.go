package analysis

import (
	"strings"
)

// typ is what the analysis knows of an expression's type, spelled as
// PostgreSQL's format_type spells it. The zero value is "not known".
type typ struct {
	base string // without the type modifier: "character varying", "integer[]"
	mod  string // the type modifier: "(255)", "(10,2)", "(3)"
	lit  bool   // PostgreSQL's "unknown" pseudo-type: an untyped literal or NULL
	enum bool   // a user-defined enum type named in the snapshot
}

var (
	tUnknown     = typ{}
	tLiteral     = typ{lit: true}
	tBool        = typ{base: "boolean"}
	tInt         = typ{base: "integer"}
	tBigint      = typ{base: "bigint"}
	tNumeric     = typ{base: "numeric"}
	tReal        = typ{base: "real"}
	tDouble      = typ{base: "double precision"}
	tText        = typ{base: "text"}
	tBpchar      = typ{base: "bpchar"}
	tName        = typ{base: "name"}
	tDate        = typ{base: "date"}
	tTime        = typ{base: "time without time zone"}
	tTimetz      = typ{base: "time with time zone"}
	tTimestamp   = typ{base: "timestamp without time zone"}
	tTimestamptz = typ{base: "timestamp with time zone"}
	tInterval    = typ{base: "interval"}
	tJSON        = typ{base: "json"}
	tJSONB       = typ{base: "jsonb"}
	tUUID        = typ{base: "uuid"}
	tBytea       = typ{base: "bytea"}
	tRecord      = typ{base: "record"}
)

// known reports whether the type is known (a literal's is not).
func (t typ) known() bool { return t.base != "" }

// String spells the type as format_type does; "unknown" when not known,
// "text" for an untyped literal (what PostgreSQL makes of one in a result).
func (t typ) String() string {
	switch {
	case t.lit:
		return "text"
	case t.base == "":
		return "unknown"
	case t.mod == "":
		return t.base
	}
	elem, dims := t.base, ""
	if i := strings.Index(elem, "[]"); i >= 0 {
		elem, dims = elem[:i], elem[i:]
	}
	if elem == "bpchar" {
		elem = "character" // bpchar(n) is spelled character(n)
	}
	if rest, ok := strings.CutPrefix(elem, "timestamp "); ok {
		return "timestamp" + t.mod + " " + rest + dims
	}
	if rest, ok := strings.CutPrefix(elem, "time "); ok {
		return "time" + t.mod + " " + rest + dims
	}
	return elem + t.mod + dims
}

// same reports equal types, modifier included.
func (t typ) same(u typ) bool { return t == u }

// isArray reports an array type.
func (t typ) isArray() bool { return strings.HasSuffix(t.base, "[]") }

// elem is the element type of an array type (unknown for others).
func (t typ) elem() typ {
	if !t.isArray() {
		return tUnknown
	}
	return typ{base: strings.TrimSuffix(t.base, "[]"), mod: t.mod, enum: t.enum}
}

// array is the array type of t (unknown when t is not known).
func (t typ) array() typ {
	if !t.known() {
		return tUnknown
	}
	if t.isArray() {
		return t // PostgreSQL does not count dimensions in a type
	}
	return typ{base: t.base + "[]", mod: t.mod, enum: t.enum}
}

// plain drops the type modifier.
func (t typ) plain() typ { t.mod = ""; return t }

// typeInfo is a known base type's category and place in the implicit casts
// PostgreSQL's common-type resolution (select_common_type) follows.
type typeInfo struct {
	cat       byte // N numeric, S string, B boolean, D date/time, T timespan, U other, E enum, A array
	preferred bool
	rank      int // within N and D: an implicit cast goes to a higher rank only
}

var typeInfos = map[string]typeInfo{
	"smallint":                    {cat: 'N', rank: 1},
	"integer":                     {cat: 'N', rank: 2},
	"bigint":                      {cat: 'N', rank: 3},
	"numeric":                     {cat: 'N', rank: 4},
	"real":                        {cat: 'N', rank: 5},
	"double precision":            {cat: 'N', rank: 6, preferred: true},
	"text":                        {cat: 'S', preferred: true},
	"character varying":           {cat: 'S'},
	"bpchar":                      {cat: 'S'},
	"name":                        {cat: 'S'},
	"boolean":                     {cat: 'B', preferred: true},
	"date":                        {cat: 'D', rank: 1},
	"timestamp without time zone": {cat: 'D', rank: 2},
	"timestamp with time zone":    {cat: 'D', rank: 3, preferred: true},
	"time without time zone":      {cat: 'D', rank: 11},
	"time with time zone":         {cat: 'D', rank: 12},
	"interval":                    {cat: 'T', preferred: true},
	"json":                        {cat: 'U'},
	"jsonb":                       {cat: 'U'},
	"uuid":                        {cat: 'U'},
	"bytea":                       {cat: 'U'},
	"inet":                        {cat: 'I', preferred: true},
	"cidr":                        {cat: 'I'},
	"macaddr":                     {cat: 'U'},
	"xml":                         {cat: 'U'},
	"money":                       {cat: 'N', rank: -1},
	"oid":                         {cat: 'N', rank: -1},
	"tsvector":                    {cat: 'U'},
	"record":                      {cat: 'P'},
}

// info returns the type's category facts; ok is false for types the
// analysis does not place.
func (t typ) info() (typeInfo, bool) {
	if t.enum {
		return typeInfo{cat: 'E'}, t.known()
	}
	if t.isArray() {
		return typeInfo{cat: 'A'}, true
	}
	ti, ok := typeInfos[t.base]
	return ti, ok
}

func (t typ) isNumeric() bool {
	ti, ok := t.info()
	return ok && ti.cat == 'N' && ti.rank > 0
}

func (t typ) isInteger() bool {
	return t.base == "smallint" || t.base == "integer" || t.base == "bigint"
}

// isString reports text, character varying, character, bpchar, name.
func (t typ) isString() bool {
	ti, ok := t.info()
	return ok && ti.cat == 'S'
}

func (t typ) isJSON() bool { return t.base == "json" || t.base == "jsonb" }

// commonType is PostgreSQL's select_common_type over the types of CASE,
// COALESCE, GREATEST/LEAST, VALUES columns and set operations, for the
// types the analysis places; unknown otherwise (PostgreSQL would resolve
// or reject it by rules the analysis does not model).
func commonType(ts []typ) typ {
	var p typ
	var pinfo typeInfo
	found := false
	sameMod := true
	for _, t := range ts {
		if t.lit {
			sameMod = false
			continue
		}
		if !t.known() {
			return tUnknown
		}
		ti, ok := t.info()
		if !ok {
			return tUnknown
		}
		if !found {
			p, pinfo, found = t, ti, true
			continue
		}
		if t.plain() == p.plain() {
			if t.mod != p.mod {
				sameMod = false
			}
			continue
		}
		sameMod = false
		if ti.cat != pinfo.cat {
			return tUnknown // PostgreSQL: "types ... cannot be matched"
		}
		switch ti.cat {
		case 'N', 'D':
			if ti.rank < 0 || pinfo.rank < 0 || (ti.rank > 10) != (pinfo.rank > 10) {
				return tUnknown
			}
			if !pinfo.preferred && ti.rank > pinfo.rank {
				p, pinfo = t, ti
			}
		case 'S':
			// text, varchar and bpchar cast to one another implicitly, so the
			// first stays (coalesce(varchar, text) is character varying).
			if p.base == "name" || t.base == "name" {
				return tUnknown
			}
		default:
			return tUnknown
		}
	}
	if !found {
		return tText // only literals: PostgreSQL resolves them as text
	}
	if !sameMod {
		p = p.plain()
	}
	return p
}

const (
	kindUnknown kind = ""
	kindText    kind = "text"
	kindNumber  kind = "number"
	kindBool    kind = "boolean"
	kindTime    kind = "time"
	kindJSON    kind = "json"
	kindUUID    kind = "uuid"
	kindBinary  kind = "binary"
	kindEnum    kind = "enum"
)
