package analysis

import (
	"slices"

	"github.com/hubsnap/hubsnap/indexer/analysis/internal/pgparse"
)

// PostgreSQL's built-ins as the analysis types them, each checked against
// PostgreSQL (psql's \gdesc, and the oracle, package pgoracle). They are
// tables, one file per kind, and nothing else lists them:
//
//	builtin_functions.go   functions, set-returning functions (in FROM and
//	                       in a result list), SQL value functions
//	builtin_aggregates.go  aggregates and window functions
//	builtin_types.go       type names, their categories and implicit casts
//	builtin_operators.go   operators
//
// To add one, add its entry to its table, in its file: a function or an
// aggregate maps its name to a rule (fn) that types a call from its
// arguments' types, fixed(t, n) for one result type, sameAsFirst for its
// first argument's, or a rule written beside the table; n says when the
// result is NULL (strict, never, nullable, strictFirst). A set-returning
// function maps its name to its columns (setReturningFunctions); an
// operator is a case of binop or prefixOp; a type is an entry of
// typeAliases and of typeInfos (and a case of typeFromName when it takes
// a modifier). Then add a case with PostgreSQL's answer to analyze_test.go.

// nulls says when a function's result is NULL.
type nulls int

const (
	strict      nulls = iota // NULL only when an argument is
	never                    // never NULL
	nullable                 // may be NULL whatever its arguments
	strictFirst              // NULL only when the first argument is (concat_ws's separator, format's format)
)

// fn types a call from its arguments' types; ok false means the analysis
// does not know this form of the function.
type fn func(args []typ) (t typ, n nulls, ok bool)

// fixed returns a rule with one result type.
func fixed(t typ, n nulls) fn {
	return func([]typ) (typ, nulls, bool) { return t, n, true }
}

// sameAsFirst returns the first argument's type without its modifier.
func sameAsFirst(n nulls, accept func(typ) bool) fn {
	return func(a []typ) (typ, nulls, bool) {
		if len(a) == 0 || !a[0].known() || (accept != nil && !accept(a[0])) {
			return tUnknown, n, false
		}
		return a[0].plain(), n, true
	}
}

// functions lists the built-in functions whose result the analysis
// types, by name (pg_catalog's, unqualified or so qualified).
var functions = map[string]fn{
	// Strings.
	"lower": fixed(tText, strict), "upper": fixed(tText, strict), "initcap": fixed(tText, strict),
	"btrim": fixed(tText, strict), "ltrim": fixed(tText, strict), "rtrim": fixed(tText, strict),
	"replace": fixed(tText, strict), "reverse": fixed(tText, strict), "repeat": fixed(tText, strict),
	"lpad": fixed(tText, strict), "rpad": fixed(tText, strict), "left": fixed(tText, strict),
	"right": fixed(tText, strict), "md5": fixed(tText, strict), "translate": fixed(tText, strict),
	"split_part": fixed(tText, strict), "to_char": fixed(tText, strict),
	"quote_ident": fixed(tText, strict), "quote_literal": fixed(tText, strict),
	"quote_nullable": fixed(tText, never), "regexp_replace": fixed(tText, strict),
	"concat": fixed(tText, never), "concat_ws": fixed(tText, strictFirst), "format": fixed(tText, strictFirst),
	"substr": fixed(tText, strict), "substring": substringFn, "overlay": fixed(tText, strict),
	"length": lengthFn, "char_length": fixed(tInt, strict), "character_length": fixed(tInt, strict),
	"octet_length": fixed(tInt, strict), "bit_length": fixed(tInt, strict),
	"strpos": fixed(tInt, strict), "position": fixed(tInt, strict), "ascii": fixed(tInt, strict),
	"chr": fixed(tText, strict), "encode": fixed(tText, strict), "decode": fixed(tBytea, strict),
	"array_to_string": fixed(tText, strict), "string_to_array": fixed(tText.array(), strict),
	// Numbers.
	"abs":   sameAsFirst(strict, typ.isNumeric),
	"round": roundFn, "ceil": roundFn, "ceiling": roundFn, "floor": roundFn, "trunc": roundFn,
	"random": fixed(tDouble, never),
	// Date and time.
	"now": fixed(tTimestamptz, never), "transaction_timestamp": fixed(tTimestamptz, never),
	"statement_timestamp": fixed(tTimestamptz, never), "clock_timestamp": fixed(tTimestamptz, never),
	"date_trunc": dateTrunc, "date_part": fixed(tDouble, strict), "extract": fixed(tNumeric, strict),
	"age": fixed(tInterval, strict), "to_timestamp": fixed(tTimestamptz, strict),
	"to_date": fixed(tDate, strict), "to_number": fixed(tNumeric, strict),
	"make_date": fixed(tDate, strict), "make_interval": fixed(tInterval, strict),
	"make_timestamp": fixed(tTimestamp, strict), "make_timestamptz": fixed(tTimestamptz, strict),
	// JSON.
	"json_build_object": fixed(tJSON, never), "jsonb_build_object": fixed(tJSONB, never),
	"json_build_array": fixed(tJSON, never), "jsonb_build_array": fixed(tJSONB, never),
	"to_json": fixed(tJSON, strict), "to_jsonb": fixed(tJSONB, strict), "row_to_json": fixed(tJSON, strict),
	"jsonb_set": fixed(tJSONB, strict), "jsonb_insert": fixed(tJSONB, strict),
	"jsonb_strip_nulls": fixed(tJSONB, strict), "json_strip_nulls": fixed(tJSON, strict),
	"jsonb_pretty": fixed(tText, strict), "jsonb_typeof": fixed(tText, strict), "json_typeof": fixed(tText, strict),
	"jsonb_array_length": fixed(tInt, strict), "json_array_length": fixed(tInt, strict),
	"jsonb_extract_path": fixed(tJSONB, nullable), "json_extract_path": fixed(tJSON, nullable),
	"jsonb_extract_path_text": fixed(tText, nullable), "json_extract_path_text": fixed(tText, nullable),
	// Arrays.
	"array_length": fixed(tInt, nullable), "cardinality": fixed(tInt, strict),
	"array_position": fixed(tInt, nullable), "array_upper": fixed(tInt, nullable), "array_lower": fixed(tInt, nullable),
	"array_append": sameAsFirst(nullable, typ.isArray), "array_cat": sameAsFirst(nullable, typ.isArray),
	"array_remove": sameAsFirst(nullable, typ.isArray),
	"array_prepend": func(a []typ) (typ, nulls, bool) {
		if len(a) == 2 && a[1].isArray() {
			return a[1].plain(), nullable, true
		}
		return tUnknown, nullable, false
	},
	// x AT TIME ZONE zone is timezone(zone, x): it swaps the time zone kind.
	"timezone": func(a []typ) (typ, nulls, bool) {
		if len(a) != 2 {
			return tUnknown, strict, false
		}
		switch a[1].base {
		case "timestamp with time zone", "date":
			return tTimestamp, strict, true
		case "timestamp without time zone":
			return tTimestamptz, strict, true
		}
		return tUnknown, strict, false
	},
	"mod": func(a []typ) (typ, nulls, bool) {
		if len(a) == 2 && a[0].isInteger() && a[1].isInteger() {
			return higherNumeric(a[0], a[1]), strict, true
		}
		return tUnknown, strict, false
	},
	// Network addresses and text search.
	"host": fixed(tText, strict), "abbrev": fixed(tText, strict), "network": fixed(typ{base: "cidr"}, strict),
	"family": fixed(tInt, strict), "masklen": fixed(tInt, strict),
	"set_masklen": sameAsFirst(strict, func(t typ) bool { return t.base == "inet" || t.base == "cidr" }),
	"to_tsvector": fixed(typ{base: "tsvector"}, strict), "to_tsquery": fixed(typ{base: "tsquery"}, strict),
	"plainto_tsquery": fixed(typ{base: "tsquery"}, strict), "websearch_to_tsquery": fixed(typ{base: "tsquery"}, strict),
	"phraseto_tsquery": fixed(typ{base: "tsquery"}, strict),
	"ts_rank":          fixed(tReal, strict), "ts_rank_cd": fixed(tReal, strict),
	"pg_size_pretty": fixed(tText, strict),
	// Set-returning functions whose rows FROM does not type (those of
	// setReturningFunctions serve result lists too).
	"regexp_matches": fixed(tText.array(), nullable), "regexp_split_to_table": fixed(tText, nullable),
	// Other.
	"gen_random_uuid": fixed(tUUID, never),
}

// substringFn: substring(text FROM pattern) is NULL when nothing matches.
func substringFn(a []typ) (typ, nulls, bool) {
	for _, t := range a[min(1, len(a)):] {
		if !t.isInteger() {
			return tText, nullable, true
		}
	}
	return tText, strict, true
}

// lengthFn: length of a string is integer; of anything else, not modelled.
func lengthFn(a []typ) (typ, nulls, bool) {
	if len(a) == 1 && (a[0].isString() || a[0].lit || a[0].base == "bytea") {
		return tInt, strict, true
	}
	return tUnknown, strict, false
}

// roundFn: round/ceil/floor/trunc keep numeric and double precision; an
// integer or real goes to double precision; round(x, n) is numeric.
func roundFn(a []typ) (typ, nulls, bool) {
	switch {
	case len(a) == 2:
		return tNumeric, strict, true
	case len(a) != 1:
		return tUnknown, strict, false
	case a[0].base == "numeric":
		return tNumeric, strict, true
	case a[0].isNumeric():
		return tDouble, strict, true
	}
	return tUnknown, strict, false
}

// dateTrunc keeps timestamp, timestamp with time zone and interval; a date
// goes to timestamp with time zone.
func dateTrunc(a []typ) (typ, nulls, bool) {
	if len(a) == 3 {
		return tTimestamptz, strict, true
	}
	if len(a) != 2 {
		return tUnknown, strict, false
	}
	switch a[1].base {
	case "timestamp without time zone":
		return tTimestamp, strict, true
	case "timestamp with time zone", "date":
		return tTimestamptz, strict, true
	case "interval":
		return tInterval, strict, true
	}
	return tUnknown, strict, false
}

// srf types the rows of a set-returning function from its arguments'
// types: their columns, and whether it has one unnamed column (scalar),
// which takes the alias (or the function's name) in FROM; ok false means
// the analysis does not know this form of it.
type srf func(args []typ) (cols []rcol, scalar, ok bool)

// setReturningFunctions lists the set-returning functions the analysis
// types, in FROM (setReturning) and, when they have one column, in a
// result list (srfFn).
var setReturningFunctions = map[string]srf{
	"generate_series":           generateSeries,
	"unnest":                    unnest,
	"jsonb_array_elements":      rows(false, rcol{name: "value", t: tJSONB, notNull: true}),
	"json_array_elements":       rows(false, rcol{name: "value", t: tJSON, notNull: true}),
	"jsonb_array_elements_text": rows(false, rcol{name: "value", t: tText}),
	"json_array_elements_text":  rows(false, rcol{name: "value", t: tText}),
	"jsonb_each":                rows(false, rcol{name: "key", t: tText, notNull: true}, rcol{name: "value", t: tJSONB, notNull: true}),
	"json_each":                 rows(false, rcol{name: "key", t: tText, notNull: true}, rcol{name: "value", t: tJSON, notNull: true}),
	"jsonb_each_text":           rows(false, rcol{name: "key", t: tText, notNull: true}, rcol{name: "value", t: tText}),
	"json_each_text":            rows(false, rcol{name: "key", t: tText, notNull: true}, rcol{name: "value", t: tText}),
	"jsonb_object_keys":         rows(true, rcol{t: tText, notNull: true}),
	"json_object_keys":          rows(true, rcol{t: tText, notNull: true}),
}

// rows returns a rule with the same columns whatever the arguments (a
// copy each time: the caller names them).
func rows(scalar bool, cols ...rcol) srf {
	return func([]typ) ([]rcol, bool, bool) { return slices.Clone(cols), scalar, true }
}

// generateSeries: the common type of start and stop, integer, numeric or
// a timestamp; a date gives timestamp with time zone.
func generateSeries(args []typ) ([]rcol, bool, bool) {
	if len(args) < 2 || len(args) > 3 {
		return nil, false, false
	}
	t := commonType(args[:2])
	switch {
	case t.isInteger() || t.base == "numeric":
		if len(args) == 3 && !args[2].isNumeric() && !args[2].lit {
			return nil, false, false
		}
		t = t.plain()
	case t.base == "timestamp without time zone", t.base == "timestamp with time zone":
		t = t.plain()
	case t.base == "date":
		t = tTimestamptz
	default:
		return nil, false, false
	}
	return []rcol{{t: t, notNull: true}}, true, true
}

// unnest: the element type of an array.
func unnest(args []typ) ([]rcol, bool, bool) {
	if len(args) != 1 || !args[0].isArray() {
		return nil, false, false
	}
	return []rcol{{t: args[0].elem().plain()}}, true, true
}

// setReturning types a set-returning function in FROM; ok false when the
// analysis does not know it.
func setReturning(name string, args []typ) (cols []rcol, scalar, ok bool) {
	if f := setReturningFunctions[name]; f != nil {
		return f(args)
	}
	return nil, false, false
}

// srfFn types a set-returning function of one column in a result list
// as setReturning types it in FROM. It is nullable whatever it returns:
// beside a longer set-returning function its rows run out as NULLs.
func srfFn(name string) fn {
	return func(a []typ) (typ, nulls, bool) {
		cols, _, ok := setReturning(name, a)
		if !ok || len(cols) != 1 {
			return tUnknown, nullable, false
		}
		return cols[0].t, nullable, true
	}
}

// sqlValueFunction is what the analysis knows of an SQL value function
// (CURRENT_DATE, CURRENT_USER, ...): the name PostgreSQL gives its result
// column, its type, whether it takes a precision (CURRENT_TIME(3)), and
// whether it is never NULL.
type sqlValueFunction struct {
	name      string
	t         typ
	precision bool
	notNull   bool
}

// sqlValueFunctions lists the SQL value functions by libpg_query's
// SQLValueFunctionOp.
var sqlValueFunctions = map[string]sqlValueFunction{
	"SVFOP_CURRENT_DATE":        {name: "current_date", t: tDate, notNull: true},
	"SVFOP_CURRENT_TIME":        {name: "current_time", t: tTimetz, notNull: true},
	"SVFOP_CURRENT_TIME_N":      {name: "current_time", t: tTimetz, precision: true, notNull: true},
	"SVFOP_CURRENT_TIMESTAMP":   {name: "current_timestamp", t: tTimestamptz, notNull: true},
	"SVFOP_CURRENT_TIMESTAMP_N": {name: "current_timestamp", t: tTimestamptz, precision: true, notNull: true},
	"SVFOP_LOCALTIME":           {name: "localtime", t: tTime, notNull: true},
	"SVFOP_LOCALTIME_N":         {name: "localtime", t: tTime, precision: true, notNull: true},
	"SVFOP_LOCALTIMESTAMP":      {name: "localtimestamp", t: tTimestamp, notNull: true},
	"SVFOP_LOCALTIMESTAMP_N":    {name: "localtimestamp", t: tTimestamp, precision: true, notNull: true},
	"SVFOP_CURRENT_ROLE":        {name: "current_role", t: tName, notNull: true},
	"SVFOP_CURRENT_USER":        {name: "current_user", t: tName, notNull: true},
	"SVFOP_USER":                {name: "user", t: tName, notNull: true},
	"SVFOP_SESSION_USER":        {name: "session_user", t: tName, notNull: true},
	"SVFOP_CURRENT_CATALOG":     {name: "current_catalog", t: tName, notNull: true},
	"SVFOP_CURRENT_SCHEMA":      {name: "current_schema", t: tName},
}

// svfExpr types CURRENT_DATE, CURRENT_USER and the like.
func svfExpr(f *pgparse.SQLValueFunction) expr {
	v, ok := sqlValueFunctions[f.Op]
	if !ok {
		return expr{}
	}
	t := v.t
	if v.precision {
		t = typ{base: t.base, mod: "(" + itoa(f.Typmod) + ")"}
	}
	return expr{t: t, notNull: v.notNull}
}
