package analysis

import (
	"strconv"
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
	tSmallint    = typ{base: "smallint"}
	tInt         = typ{base: "integer"}
	tBigint      = typ{base: "bigint"}
	tNumeric     = typ{base: "numeric"}
	tReal        = typ{base: "real"}
	tDouble      = typ{base: "double precision"}
	tText        = typ{base: "text"}
	tVarchar     = typ{base: "character varying"}
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

// typeAliases maps the names a cast or a snapshot may use to the spelling
// of format_type, for the types the analysis knows.
var typeAliases = map[string]string{
	"smallint": "smallint", "int2": "smallint", "smallserial": "smallint", "serial2": "smallint",
	"integer": "integer", "int": "integer", "int4": "integer", "serial": "integer", "serial4": "integer",
	"bigint": "bigint", "int8": "bigint", "bigserial": "bigint", "serial8": "bigint",
	"numeric": "numeric", "decimal": "numeric",
	"real": "real", "float4": "real",
	"double precision": "double precision", "float8": "double precision",
	"text":              "text",
	"character varying": "character varying", "varchar": "character varying",
	"character": "bpchar", "char": "bpchar",
	"bpchar":  "bpchar",
	"name":    "name",
	"boolean": "boolean", "bool": "boolean",
	"date":                        "date",
	"time":                        "time without time zone",
	"time without time zone":      "time without time zone",
	"timetz":                      "time with time zone",
	"time with time zone":         "time with time zone",
	"timestamp":                   "timestamp without time zone",
	"timestamp without time zone": "timestamp without time zone",
	"timestamptz":                 "timestamp with time zone",
	"timestamp with time zone":    "timestamp with time zone",
	"interval":                    "interval",
	"json":                        "json", "jsonb": "jsonb",
	"uuid": "uuid", "bytea": "bytea",
	"inet": "inet", "cidr": "cidr", "macaddr": "macaddr",
	"xml": "xml", "money": "money", "oid": "oid", "tsvector": "tsvector",
}

// serialTypes are the types that imply a default (a sequence).
var serialTypes = map[string]bool{
	"serial": true, "serial2": true, "serial4": true, "serial8": true,
	"smallserial": true, "bigserial": true,
}

// typeFromName builds a type from a base name (lower case, single spaced)
// and its modifier values; unknown when the analysis does not know it.
func typeFromName(name string, mods []int64) typ {
	base, ok := typeAliases[name]
	if !ok {
		return tUnknown
	}
	t := typ{base: base}
	switch base {
	case "character varying":
		if len(mods) == 1 {
			t.mod = "(" + strconv.FormatInt(mods[0], 10) + ")"
		}
	case "bpchar":
		switch {
		case len(mods) == 1:
			t.mod = "(" + strconv.FormatInt(mods[0], 10) + ")"
		case name != "bpchar":
			t.mod = "(1)" // char alone is character(1)
		}
	case "numeric":
		switch len(mods) {
		case 1:
			t.mod = "(" + strconv.FormatInt(mods[0], 10) + ",0)"
		case 2:
			t.mod = "(" + strconv.FormatInt(mods[0], 10) + "," + strconv.FormatInt(mods[1], 10) + ")"
		}
	case "timestamp without time zone", "timestamp with time zone", "time without time zone", "time with time zone":
		if len(mods) == 1 {
			t.mod = "(" + strconv.FormatInt(mods[0], 10) + ")"
		}
	case "double precision":
		if name == "float" && len(mods) == 1 && mods[0] <= 24 {
			t.base = "real"
		}
	}
	if len(mods) > 0 && t.mod == "" && base != "double precision" {
		return tUnknown // a modifier the analysis does not model (interval fields, ...)
	}
	if len(mods) > 2 {
		return tUnknown
	}
	return t
}

// parseTypeText maps a type as a snapshot states it ("varchar(255)",
// "INT4", "timestamp(3) with time zone", "text[]", "_int4") to a
// PostgreSQL type, or unknown ("string", "USER-DEFINED", ...).
func parseTypeText(s string) typ {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	if s == "" {
		return tUnknown
	}
	array := false
	for {
		if rest, ok := strings.CutSuffix(s, "]"); ok {
			i := strings.LastIndexByte(rest, '[')
			if i < 0 {
				return tUnknown
			}
			if _, err := strconv.Atoi(strings.TrimSpace(rest[i+1:])); err != nil && strings.TrimSpace(rest[i+1:]) != "" {
				return tUnknown
			}
			s, array = strings.TrimSpace(rest[:i]), true
			continue
		}
		if rest, ok := strings.CutSuffix(s, " array"); ok {
			s, array = rest, true
			continue
		}
		break
	}
	if rest, ok := strings.CutPrefix(s, "_"); ok && !array {
		s, array = rest, true
	}
	// Modifiers: "name(a,b) rest" or "name(a)".
	var mods []int64
	if i := strings.IndexByte(s, '('); i >= 0 {
		j := strings.IndexByte(s, ')')
		if j < i {
			return tUnknown
		}
		for _, m := range strings.Split(s[i+1:j], ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(m), 10, 64)
			if err != nil {
				return tUnknown
			}
			mods = append(mods, v)
		}
		s = strings.TrimSpace(strings.TrimSpace(s[:i]) + " " + strings.TrimSpace(s[j+1:]))
	}
	t := typeFromName(s, mods)
	if array {
		t = t.array()
	}
	return t
}

// kind is the family a param's declared type or a column's type belongs
// to, for PARAM_TYPE.
type kind string

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

// paramKinds maps declared param types (a Hub's vocabulary and
// PostgreSQL's names) to kinds. Anything else is unknown.
var paramKinds = map[string]kind{
	"string": kindText, "text": kindText, "varchar": kindText, "character varying": kindText,
	"char": kindText, "character": kindText, "citext": kindText, "str": kindText,
	"number": kindNumber, "integer": kindNumber, "int": kindNumber, "int2": kindNumber,
	"int4": kindNumber, "int8": kindNumber, "smallint": kindNumber, "bigint": kindNumber,
	"float": kindNumber, "float4": kindNumber, "float8": kindNumber, "double": kindNumber,
	"double precision": kindNumber, "real": kindNumber, "decimal": kindNumber, "numeric": kindNumber,
	"long":    kindNumber,
	"boolean": kindBool, "bool": kindBool,
	"date": kindTime, "datetime": kindTime, "timestamp": kindTime, "timestamptz": kindTime,
	"timestamp with time zone": kindTime, "timestamp without time zone": kindTime,
	"json": kindJSON, "jsonb": kindJSON, "object": kindJSON,
	"uuid":  kindUUID,
	"bytea": kindBinary, "binary": kindBinary, "bytes": kindBinary, "blob": kindBinary,
}

// paramKind is the kind of a declared param type.
func paramKind(declared string) kind {
	return paramKinds[strings.Join(strings.Fields(strings.ToLower(declared)), " ")]
}

// typeKind is the kind of a column's type.
func typeKind(t typ) kind {
	if t.enum {
		return kindEnum
	}
	switch {
	case !t.known() || t.isArray():
		return kindUnknown
	case t.isNumeric():
		return kindNumber
	case t.isString():
		return kindText
	}
	switch t.base {
	case "boolean":
		return kindBool
	case "date", "timestamp without time zone", "timestamp with time zone":
		return kindTime
	case "json", "jsonb":
		return kindJSON
	case "uuid":
		return kindUUID
	case "bytea":
		return kindBinary
	}
	return kindUnknown
}

// paramTypeClash reports whether a param of kind p certainly does not fit
// a column of kind c: compared with it (assign false) or assigned to it
// (assign true). A string param fits every kind written as a string
// (time, json, uuid, enum, binary); anything can be assigned to a text
// column (PostgreSQL's assignment casts to text).
func paramTypeClash(p, c kind, assign bool) bool {
	if p == kindUnknown || c == kindUnknown || p == c {
		return false
	}
	if p == kindText {
		return c == kindNumber || c == kindBool
	}
	if c == kindText {
		return !assign
	}
	return true
}
