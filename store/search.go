package store

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"
)

// Kind is what a search hit is.
type Kind string

// Kinds of search hits.
const (
	KindTable  Kind = "table"
	KindColumn Kind = "column"
	KindLogic  Kind = "logic"
)

// Kinds lists every Kind, in the order hits of equal rank are given.
var Kinds = []Kind{KindTable, KindColumn, KindLogic}

// Fields a search hit can match in; see Hit.Matched.
const (
	MatchName        = "name"        // the name; a column's together with its table's
	MatchParam       = "param"       // a logic's parameter names
	MatchComment     = "comment"     // a table's or column's comment
	MatchDescription = "description" // a logic's description
	MatchSQL         = "sql"         // a logic's SQL
)

// Search limits.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 100
	// MaxQueryBytes bounds a search's words (schema_search's query).
	MaxQueryBytes = 1024
	maxQueryWords = 16
	// A step of a search reads matching tables or logics a page at a
	// time, in release order, and stops once the search has more hits
	// than it needs or it has examined searchBudget of them. A word found
	// in thousands of tables is not ranked over all of them: that keeps a
	// search over a 10,000-table release near a millisecond whatever the
	// query.
	searchPage   = 32
	searchBudget = 4 * searchPage
	// minPrefix is the shortest ASCII word that matches as a prefix;
	// shorter ones ("id", "at") match whole words only, as prefixes of
	// one or two letters match most of a schema and say little.
	minPrefix = 3
	// excerptRunes is about how long an excerpt of a comment,
	// description or SQL is.
	excerptRunes = 100
)

// SearchQuery is a search over the names, comments, descriptions and SQL
// of a release.
type SearchQuery struct {
	// Text is plain text, never query syntax: its words (split as in
	// wordSpans) must all match, each as a prefix of a word.
	Text string
	// Kinds limits the hits to these kinds; all when empty.
	Kinds []Kind
	// Limit is the most hits to return: DefaultSearchLimit when 0, at
	// most MaxSearchLimit.
	Limit int
}

// Hit is one thing a search found.
type Hit struct {
	Kind       Kind
	Connection string // of the table, for table and column hits
	Table      string // table and column hits
	Column     string // column hits
	Logic      string // logic hits
	// Matched says where the words were found, one of the Match
	// constants: every word was in the name (MatchName), or it took the
	// param names, comment, description or SQL too.
	Matched string
	// Text is what matched beyond the name: an excerpt of the comment,
	// description or SQL, or the matching param names; "" for MatchName.
	Text string
}

// SearchResult is the answer to a search.
type SearchResult struct {
	Hits []Hit
	// More is set when there are more hits than the limit, or matches
	// that were not examined.
	More bool
}

// Search finds tables, columns and logics of t's current release.
//
// Every word of the query must match a word of one table, column or logic
// (see isPrefix): of its name (a column's words include its table's, so
// "users email" finds users.email), then its param names, comment or
// description, and last its SQL.
//
// Tables and logics whose whole name is the query's words come first.
// Then hits are ranked by where they matched (names of tables, logics,
// columns; then params; table comments, column comments, descriptions;
// then SQL), then by how many query words are whole words of the name
// rather than prefixes, then by shorter names, then by kind and name. See
// searchBudget for queries that match thousands of things.
func (s *Store) Search(ctx context.Context, t Target, q SearchQuery) (SearchResult, error) {
	terms, kinds, limit, err := q.check()
	if err != nil {
		return SearchResult{}, err
	}
	var res SearchResult
	err = s.view(ctx, func(tx readTx) error {
		rel, err := currentID(ctx, tx, t)
		if err != nil {
			return err
		}
		if len(terms) == 0 {
			return nil // only punctuation: nothing can match
		}
		sr := &searcher{tx: tx, release: rel, terms: terms, kinds: kinds, limit: limit, seen: map[hitKey]bool{},
			phrase: strings.Join(words(q.Text), " "),
			tables: map[int64]*searchTable{}, logics: map[int64]*searchLogic{}}
		if found, err := sr.expand(ctx); err != nil || !found {
			return err
		}
		return sr.search(ctx, &res)
	})
	return res, err
}

// search runs the search and fills res.
//
// It first asks for every table (and every logic) the query matches at
// all. When there are at most searchPage of them, every step runs over
// them in memory: two queries answer the search, ranked over all its
// matches. Otherwise the steps run one by one, each a query of its own
// that reads a page of candidates at a time, so a common word costs a few
// pages rather than thousands of rows.
func (sr *searcher) search(ctx context.Context, res *SearchResult) error {
	if err := sr.exactNames(ctx); err != nil {
		return err
	}
	complete := map[bool]bool{} // by step.logics
	for _, logics := range []bool{false, true} {
		if !slices.ContainsFunc(steps, func(st step) bool { return st.logics == logics && sr.wants(st) }) {
			continue
		}
		ids, err := sr.page(ctx, logics, allColumns, nil, sr.first(logics), searchPage+1)
		if err != nil {
			return err
		}
		if len(ids) > searchPage {
			continue
		}
		complete[logics] = true
		for i, st := range steps {
			if st.logics == logics && sr.wants(st) {
				if err := sr.hitsIn(ctx, i, st, ids); err != nil {
					return err
				}
			}
		}
	}
	for i, st := range steps {
		if complete[st.logics] || !sr.wants(st) {
			continue
		}
		if sr.better(i) > sr.limit {
			res.More = true // the steps left could only add worse hits
			break
		}
		if err := sr.run(ctx, i, st); err != nil {
			return err
		}
	}
	slices.SortFunc(sr.hits, compareHits)
	if len(sr.hits) > sr.limit {
		sr.hits, res.More = sr.hits[:sr.limit], true
	}
	res.More = res.More || sr.truncated
	res.Hits = make([]Hit, len(sr.hits))
	for i, h := range sr.hits {
		res.Hits[i] = h.Hit
	}
	return nil
}

// check validates q and returns its words, wanted kinds and limit.
func (q SearchQuery) check() (terms []string, kinds map[Kind]bool, limit int, err error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, nil, 0, Errorf(InvalidArgument, "query is empty: give words to look for, e.g. \"user email\"")
	}
	if len(q.Text) > MaxQueryBytes {
		return nil, nil, 0, Errorf(InvalidArgument, "query is %d bytes long; at most %d", len(q.Text), MaxQueryBytes)
	}
	if !utf8.ValidString(q.Text) {
		return nil, nil, 0, Errorf(InvalidArgument, "query is not valid UTF-8")
	}
	terms = slices.Compact(slices.Sorted(slices.Values(words(q.Text))))
	if len(terms) > maxQueryWords {
		return nil, nil, 0, Errorf(InvalidArgument, "query has %d different words; at most %d", len(terms), maxQueryWords)
	}
	limit = q.Limit
	switch {
	case limit == 0:
		limit = DefaultSearchLimit
	case limit < 1 || limit > MaxSearchLimit:
		return nil, nil, 0, Errorf(InvalidArgument, "limit must be between 1 and %d, got %d", MaxSearchLimit, limit)
	}
	kinds = map[Kind]bool{}
	for _, k := range q.Kinds {
		if !slices.Contains(Kinds, k) {
			return nil, nil, 0, Errorf(InvalidArgument, "unknown kind %q; kinds are table, column and logic", short(string(k)))
		}
		kinds[k] = true
	}
	if len(kinds) == 0 {
		for _, k := range Kinds {
			kinds[k] = true
		}
	}
	return terms, kinds, limit, nil
}
