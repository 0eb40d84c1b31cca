-- A table's primary key, columns, foreign keys, indexes and referencedBy
-- move into one column of its row, tables.detail, encoded by package store
-- (store/detail.go). schema_get_table then reads one row rather than five
-- result sets, and indexing writes one row per table rather than about
-- twenty: on a 10,000-table release that is the difference between
-- 140 µs and 20 µs a lookup, and about half a second of indexing.
--
-- referencedBy is worked out at indexing time, within the release: the
-- foreign keys of the release's tables that name this table.

DROP TABLE indexes;
DROP TABLE foreign_keys;
DROP TABLE columns;
ALTER TABLE tables DROP COLUMN primary_key;
ALTER TABLE tables ADD COLUMN detail BLOB NOT NULL DEFAULT x'';

-- The index is derived data: empty it (the search rows too, which no
-- foreign key ties to releases), and the next open rebuilds it from the
-- release files in the new shape.
DELETE FROM releases;
INSERT INTO search (search) VALUES ('delete-all');

-- The full-text index is merged whole after every release written
-- (Store.Optimize), so merging it bit by bit while a release is written
-- (automerge) is work done twice.
INSERT INTO search (search, rank) VALUES ('automerge', 0);
