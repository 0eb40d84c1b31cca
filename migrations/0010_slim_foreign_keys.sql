-- A foreign key's JSON is computed when it is read, not stored.
--
-- Since migrations 6 and 8, foreign_keys.json and ref_json were plain
-- columns that package store wrote with each row, and json was held again
-- in the index foreign_keys_by_table, beside the six columns of the
-- primary key. At 100,000 tables that was 70 MB of the two strings in the
-- rows and 69 MB of index, for values that a few string operations make
-- from the columns beside them. They are VIRTUAL generated columns now:
-- SQLite computes them when a statement reads them, so sqlite3 users and
-- the answers' statements read them as before, and nothing writes them.
-- A table's own keys are a range of foreign_keys_by_table (table_id,
-- position) and, for each key, a lookup of its row by the primary key;
-- a table has a few keys, and the lookup costs less than the bytes saved
-- (docs/benchmarks.md, "slimindex").
--
-- The expressions are migration 4's (the shape of answer.ForeignKey among
-- a table's foreignKeys, and of answer.Reference among the referenced
-- table's referencedBy), written with || and iif() rather than concat(),
-- which SQLite has only since 3.44: a generated column's functions must
-- exist in every sqlite3 that opens the index (docs/index.md asks for
-- 3.38), or that sqlite3 cannot read the schema at all.
--
-- The rows are kept; no release is indexed again. Dropping the columns
-- rewrites each row in place: the pages they leave empty stay in the file
-- as free pages until later writes reuse them.

DROP INDEX foreign_keys_by_table;
ALTER TABLE foreign_keys DROP COLUMN json;
ALTER TABLE foreign_keys DROP COLUMN ref_json;
ALTER TABLE foreign_keys ADD COLUMN json TEXT GENERATED ALWAYS AS ('{' || iif(name IS NULL, '', '"name":' || json_quote(name) || ',')
    || iif(json_array_length(columns) = 1, '"column":' || (columns -> 0) || ',', '')
    || '"columns":' || columns
    || ',"references":{"table":' || json_quote(ref_table)
    || iif(ref_connection = connection, '', ',"connection":' || json_quote(ref_connection))
    || iif(json_array_length(ref_columns) = 1, ',"column":' || (ref_columns -> 0), '')
    || ',"columns":' || ref_columns || '}'
    || iif(on_delete IS NULL, '', ',"onDelete":' || json_quote(on_delete)) || '}') VIRTUAL;
ALTER TABLE foreign_keys ADD COLUMN ref_json TEXT GENERATED ALWAYS AS ('{"table":' || json_quote(table_name)
    || iif(connection = ref_connection, '', ',"connection":' || json_quote(connection))
    || iif(name IS NULL, '', ',"name":' || json_quote(name))
    || ',"columns":' || columns || ',"referencedColumns":' || ref_columns || '}') VIRTUAL;
CREATE INDEX foreign_keys_by_table ON foreign_keys (table_id, position);
