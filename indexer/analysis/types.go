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
