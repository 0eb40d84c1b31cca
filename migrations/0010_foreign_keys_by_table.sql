-- A foreign key's JSON is stored once, in foreign_keys_by_table.
--
-- Since migration 6, foreign_keys.json was a plain column, written by
-- package store with each row and held again by the index
-- foreign_keys_by_table, so that a table's own keys were read from the
-- index alone. At 100,000 tables each copy was 41 MB.
--
-- The index now holds the expression that makes a key's JSON from its
-- row, rather than a column: SQLite stores the value of an indexed
-- expression in the index only, and reads it from there when a statement
-- asks for the same expression (store/table_json.go, foreignKeyJSON, is
-- this expression word for word), so a table's own keys are still one
-- range read of the index, and the row no longer holds a second copy.
-- json stays in the table as a VIRTUAL generated column with the same
-- expression, for sqlite3 users: they read it as before, computed.
--
-- Reading json from the row instead (a VIRTUAL column, or a stored one
-- looked up by the primary key) made schema_get_table slower
-- (docs/benchmarks.md, "slimindex"). SQLite never takes an index on a
-- generated column as holding its value, hence an index on the expression.
--
-- The expression is migration 4's, written with || and iif() rather than
-- concat(), which SQLite has only since 3.44: an indexed expression's and
-- a generated column's functions must exist in every sqlite3 that opens
-- the index (docs/index.md asks for 3.38), or that sqlite3 cannot read the
-- schema at all.
--
-- The rows are kept; no release is indexed again. Dropping json rewrites
-- each row in place: the pages it leaves empty stay in the file as free
-- pages until later writes reuse them.

DROP INDEX foreign_keys_by_table;
ALTER TABLE foreign_keys DROP COLUMN json;
ALTER TABLE foreign_keys ADD COLUMN json TEXT GENERATED ALWAYS AS ('{' || iif(name IS NULL, '', '"name":' || json_quote(name) || ',')
    || iif(json_array_length(columns) = 1, '"column":' || (columns -> 0) || ',', '')
    || '"columns":' || columns
    || ',"references":{"table":' || json_quote(ref_table)
    || iif(ref_connection = connection, '', ',"connection":' || json_quote(ref_connection))
    || iif(json_array_length(ref_columns) = 1, ',"column":' || (ref_columns -> 0), '')
    || ',"columns":' || ref_columns || '}'
    || iif(on_delete IS NULL, '', ',"onDelete":' || json_quote(on_delete)) || '}') VIRTUAL;
CREATE INDEX foreign_keys_by_table ON foreign_keys (table_id, position, '{' || iif(name IS NULL, '', '"name":' || json_quote(name) || ',')
    || iif(json_array_length(columns) = 1, '"column":' || (columns -> 0) || ',', '')
    || '"columns":' || columns
    || ',"references":{"table":' || json_quote(ref_table)
    || iif(ref_connection = connection, '', ',"connection":' || json_quote(ref_connection))
    || iif(json_array_length(ref_columns) = 1, ',"column":' || (ref_columns -> 0), '')
    || ',"columns":' || ref_columns || '}'
    || iif(on_delete IS NULL, '', ',"onDelete":' || json_quote(on_delete)) || '}');
