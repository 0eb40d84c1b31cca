package analysis

import (
	"strconv"
	"strings"
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
