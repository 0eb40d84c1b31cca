-- The index holds no answer formatting.
--
-- Migrations 4 and 6 wrote in the schema, as generated columns, how
-- schema_get_table shows a column, an index and a key among a table's
-- referencedBy (columns.json, indexes.json, foreign_keys.ref_json). Those
-- columns stay, as plain ones like foreign_keys.json since migration 6:
-- the answer reads them as they are, which keeps schema_get_table one
-- range read of each child table. Package store now writes them with each
-- row, from the expressions in store/table_json.go, where the rest of the
-- answer is composed: the shape of an answer is written in one place.
--
-- A migration cannot fill them without writing that shape here again, so,
-- as migrations 5 and 7 did, every release file is made to look changed,
-- and each release is indexed again at the next open (every command that
-- opens the cache brings the index in line with the files). Until then the
-- new columns are NULL.

ALTER TABLE columns DROP COLUMN json;
ALTER TABLE columns ADD COLUMN json TEXT;
ALTER TABLE indexes DROP COLUMN json;
ALTER TABLE indexes ADD COLUMN json TEXT;
ALTER TABLE foreign_keys DROP COLUMN ref_json;
ALTER TABLE foreign_keys ADD COLUMN ref_json TEXT;
UPDATE releases SET file_digest = '', file_size = -1;
