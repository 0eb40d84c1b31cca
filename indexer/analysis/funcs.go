package analysis

// nulls says when a function's result is NULL.
type nulls int

const (
	strict   nulls = iota // NULL only when an argument is
	never                 // never NULL
	nullable              // may be NULL whatever its arguments
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
// types, by name (pg_catalog's, unqualified or so qualified). Every entry
// was checked against PostgreSQL (psql's \gdesc).
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
	"concat": fixed(tText, never), "concat_ws": concatWS, "format": formatFn,
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
	// Set-returning functions in a result list: a row per element.
	"unnest": srfFn("unnest"), "generate_series": srfFn("generate_series"),
	"jsonb_array_elements": srfFn("jsonb_array_elements"), "json_array_elements": srfFn("json_array_elements"),
	"jsonb_array_elements_text": srfFn("jsonb_array_elements_text"), "json_array_elements_text": srfFn("json_array_elements_text"),
	"jsonb_object_keys": srfFn("jsonb_object_keys"), "json_object_keys": srfFn("json_object_keys"),
	"regexp_matches": fixed(tText.array(), nullable), "regexp_split_to_table": fixed(tText, nullable),
	// Other.
	"gen_random_uuid": fixed(tUUID, never),
}

// aggregates lists the aggregate functions the analysis types. An
// aggregate is NULL over no rows, except count.
var aggregates = map[string]fn{
	"count":            fixed(tBigint, never),
	"sum":              sumFn,
	"avg":              avgFn,
	"min":              minMaxFn,
	"max":              minMaxFn,
	"bool_and":         fixed(tBool, nullable),
	"bool_or":          fixed(tBool, nullable),
	"every":            fixed(tBool, nullable),
	"string_agg":       stringAgg,
	"array_agg":        arrayAgg,
	"json_agg":         fixed(tJSON, nullable),
	"jsonb_agg":        fixed(tJSONB, nullable),
	"json_object_agg":  fixed(tJSON, nullable),
	"jsonb_object_agg": fixed(tJSONB, nullable),
	"stddev":           statFn, "stddev_samp": statFn, "stddev_pop": statFn,
	"variance": statFn, "var_samp": statFn, "var_pop": statFn,
	"bit_and": sameAsFirst(nullable, typ.isInteger),
	"bit_or":  sameAsFirst(nullable, typ.isInteger),
}

// windowFunctions lists the window functions the analysis types.
var windowFunctions = map[string]fn{
	"row_number":   fixed(tBigint, never),
	"rank":         fixed(tBigint, never),
	"dense_rank":   fixed(tBigint, never),
	"percent_rank": fixed(tDouble, never),
	"cume_dist":    fixed(tDouble, never),
	"ntile":        fixed(tInt, nullable),
	"lag":          sameAsFirst(nullable, nil),
	"lead":         sameAsFirst(nullable, nil),
	"first_value":  sameAsFirst(nullable, nil),
	"last_value":   sameAsFirst(nullable, nil),
	"nth_value":    sameAsFirst(nullable, nil),
}

// NULL only for a NULL separator: strict over it
