package analysis

import "strconv"

// PostgreSQL's built-in types as the analysis knows them: their names, as
// a cast or a snapshot may write them and as format_type spells them,
// their modifiers, and their categories in the implicit casts of
// common-type resolution (builtin_functions.go says how to add one).

// Types the analysis gives expressions.
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
