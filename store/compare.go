package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Comparing two indexes (hubsnap index verify): the live one with one
// rebuilt from the release files. Release ids, and so table and logic
// ids, depend on the order releases were indexed in; what is compared is
// every row with its ids made relative: a release by its project and id,
// a table or logic by its place in its release. Each part (a table of
// the index, the full-text index through fts5vocab, the schema) is summed
// per release as a multiset of row hashes; a part whose sums differ is
// read again to name the tables or logics whose rows differ.

// Difference is a part of one index that differs from another.
type Difference struct {
	Release string // "project/release_id", or "" for the index as a whole
	Part    string // a table of the index, "search" (the full-text index) or "schema"
	What    string // what differs, for a person
}

func (d Difference) String() string {
	if d.Release == "" {
		return d.Part + ": " + d.What
	}
	return "release " + d.Release + ", " + d.Part + ": " + d.What
}

// comparedPart is a part of the index and the statement that reads it:
// each row gives the release id (NULL for none), the place of the table or
// logic it belongs to (-1 for none), then the values compared, as one JSON
// array (which tells the number 1 from the text 1, and NULL from empty
// text): modernc takes a lock for each value read, and one value a row is
// a third of the time of ten.
type comparedPart struct {
	name  string
	owner string // "table" or "logic": what the second column places
	query string
}

// comparedParts are the parts compared, with their statements.
var comparedParts = []comparedPart{
	{"releases", "", `SELECT id, -1, json_array(project, release_id, environment, version, created_at, synced_at, source,
		digest, file_digest, file_size, file_mtime, table_count, logic_count) FROM releases`},
	{"current_releases", "", `SELECT release, -1, json_array(project, environment) FROM current_releases`},
	{"connections", "", `SELECT release, -1, json_array(name, engine, position) FROM connections`},
	{"tables", "table", `SELECT id >> 32, id & 4294967295, json_array(release = id >> 32, connection, name, comment,
		position, digest) FROM tables`},
	// A table's columns as one value: a tenth of the rows to step through.
	{"columns", "table", `SELECT table_id >> 32, table_id & 4294967295, group_concat(json_array(position, name, type,
		nullable, comment, default_value, enum_values, pk_position, json), char(10) ORDER BY position) FROM columns GROUP BY table_id`},
	{"foreign_keys", "table", `SELECT table_id >> 32, table_id & 4294967295, json_array(release = table_id >> 32,
		ref_connection, ref_table, connection, table_name, position, name, columns, ref_columns, on_delete, json, ref_json)
		FROM foreign_keys`},
	{"indexes", "table", `SELECT table_id >> 32, table_id & 4294967295, json_array(position, name, columns, is_unique, json)
		FROM indexes`},
	{"logics", "logic", `SELECT id >> 32, id & 4294967295, json_array(release = id >> 32, name, description, sql,
		auth_required, auth_roles, position, digest) FROM logics`},
	{"logic_params", "logic", `SELECT logic_id >> 32, logic_id & 4294967295, json_array(position, name, type, required)
		FROM logic_params`},
	{"search_words", "", `SELECT release, -1, json_array(word, columns) FROM search_words`},
	{"search_names", "", `SELECT release, -1, json_array(name, row >> 32 = release, row & 4294967295) FROM search_names`},
	// The full-text index's words, as fts5vocab lists them: a word of a
	// column of a row (a table's or a logic's, by its rowid).
	{"search", "", `SELECT doc >> 32, -1, json_array(term, doc & 4294967295, col) FROM temp.hubsnap_vocab`},
	{"schema", "", `SELECT NULL, -1, json_array(type, name, tbl_name, sql) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_stat%'`},
	{"schema_migrations", "", `SELECT NULL, -1, json_array(version, name) FROM schema_migrations`},
}

// vocabTable makes the fts5vocab table the part "search" reads.
const vocabTable = `CREATE VIRTUAL TABLE temp.hubsnap_vocab USING fts5vocab(main, search, instance)`

// maxNamed is how many tables or logics a difference names at most.
const maxNamed = 10

// partKey is a part of one release.
type partKey struct {
	release string
	part    string
	owner   int64 // -1: the part as a whole
}

// partSum is a multiset of row hashes, and their count.
type partSum struct {
	sum   uint64
	count int
}

// comparer reads the parts of one index, in one read transaction.
type comparer struct {
	db       *sql.DB
	conn     *sql.Conn
	releases map[int64]string // release id -> "project/release_id"
	seed     maphash.Seed
}

func (s *Store) newComparer(ctx context.Context, seed maphash.Seed) (c *comparer, err error) {
	db, err := s.openChecker()
	if err != nil {
		return nil, err
	}
	c = &comparer{db: db, releases: map[int64]string{}, seed: seed}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	if c.conn, err = db.Conn(ctx); err != nil {
		return nil, classify("compare index", err)
	}
	for _, q := range []string{vocabTable, "BEGIN"} {
		if _, err := c.conn.ExecContext(ctx, q); err != nil {
			return nil, classify("compare index", err)
		}
	}
	rows, err := c.conn.QueryContext(ctx, `SELECT id, project, release_id FROM releases`)
	if err != nil {
		return nil, classify("compare index", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var project, release string
		if err := rows.Scan(&id, &project, &release); err != nil {
			return nil, classify("compare index", err)
		}
		c.releases[id] = project + "/" + release
	}
	if err := rows.Err(); err != nil {
		return nil, classify("compare index", err)
	}
	return c, nil
}

func (c *comparer) close() {
	if c.conn != nil {
		c.conn.ExecContext(context.Background(), "ROLLBACK")
		c.conn.Close()
	}
	c.db.Close()
}

// release names a release id: "project/id", or "#id" for rows of a
// release the index does not hold.
func (c *comparer) release(v any) string {
	id, ok := v.(int64)
	if !ok {
		return ""
	}
	if key, ok := c.releases[id]; ok {
		return key
	}
	return "#" + strconv.FormatInt(id, 10)
}

// sums reads part p and sums its rows by release, or, for release
// (not ""), that release's rows by owner.
func (c *comparer) sums(ctx context.Context, p comparedPart, release string) (map[partKey]partSum, error) {
	rows, err := c.conn.QueryContext(ctx, p.query)
	if err != nil {
		return nil, classify("compare index", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, classify("compare index", err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	out := map[partKey]partSum{}
	var h maphash.Hash
	h.SetSeed(c.seed)
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, classify("compare index", err)
		}
		key := partKey{release: c.release(vals[0]), part: p.name, owner: -1}
		if release != "" {
			if key.release != release {
				continue
			}
			if o, ok := vals[1].(int64); ok {
				key.owner = o
			}
		}
		h.Reset()
		for _, v := range vals[1:] {
			hashValue(&h, v)
		}
		s := out[key]
		s.sum += h.Sum64()
		s.count++
		out[key] = s
	}
	if err := rows.Err(); err != nil {
		return nil, classify("compare index", err)
	}
	return out, nil
}

// hashValue writes v to h with its kind and length, so that no two rows
// hash alike by running into each other.
func hashValue(h *maphash.Hash, v any) {
	var b [9]byte
	switch v := v.(type) {
	case nil:
		h.WriteByte(0)
	case int64:
		b[0] = 1
		putUint64(b[1:], uint64(v))
		h.Write(b[:])
	case float64:
		b[0] = 2
		putUint64(b[1:], math.Float64bits(v))
		h.Write(b[:])
	case string:
		b[0] = 3
		putUint64(b[1:], uint64(len(v)))
		h.Write(b[:])
		h.WriteString(v)
	case []byte:
		b[0] = 4
		putUint64(b[1:], uint64(len(v)))
		h.Write(b[:])
		h.Write(v)
	default:
		h.WriteString(fmt.Sprintf("%T %v", v, v))
	}
}

func putUint64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}

// Compare compares the content of the index with that of other, an index
// rebuilt from the same release files, and returns what differs. A part
// that cannot be read (a damaged page) is an error.
func (s *Store) Compare(ctx context.Context, other *Store) ([]Difference, error) {
	seed := maphash.MakeSeed()
	a, err := s.newComparer(ctx, seed)
	if err != nil {
		return nil, err
	}
	defer a.close()
	b, err := other.newComparer(ctx, seed)
	if err != nil {
		return nil, err
	}
	defer b.close()
	var diffs []Difference
	for _, p := range comparedParts {
		sa, sb, err := bothSums(ctx, p, "", a, b)
		if err != nil {
			return nil, err
		}
		for _, k := range differingKeys(sa, sb) {
			d := Difference{Release: k.release, Part: p.name,
				What: fmt.Sprintf("%d entries here, %d in the index rebuilt from the release files: they differ",
					sa[k].count, sb[k].count)}
			if p.owner != "" && k.release != "" {
				if what, err := describeOwners(ctx, p, k.release, a, b); err == nil && what != "" {
					d.What = what
				}
			}
			diffs = append(diffs, d)
		}
	}
	return diffs, nil
}

// bothSums reads part p of both indexes at once, one on each core.
func bothSums(ctx context.Context, p comparedPart, release string, a, b *comparer) (sa, sb map[partKey]partSum, err error) {
	var errB error
	done := make(chan struct{})
	go func() {
		defer close(done)
		sb, errB = b.sums(ctx, p, release)
	}()
	sa, err = a.sums(ctx, p, release)
	<-done
	if err == nil {
		err = errB
	}
	return sa, sb, err
}

// differingKeys are the keys whose sums differ, in order.
func differingKeys(a, b map[partKey]partSum) []partKey {
	var keys []partKey
	for k, v := range a {
		if b[k] != v {
			keys = append(keys, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y partKey) int {
		if c := strings.Compare(x.release, y.release); c != 0 {
			return c
		}
		if c := strings.Compare(x.part, y.part); c != 0 {
			return c
		}
		return int(x.owner - y.owner)
	})
	return keys
}
