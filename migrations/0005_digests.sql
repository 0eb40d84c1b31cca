-- Digests of tables and logics, for schema_diff and `hubsnap snapshot diff`.
--
-- tables.digest and logics.digest hold a hash of everything schema_diff
-- compares of the table (its comment, its columns by name with their type,
-- nullability, comment, default and enum, its primary key, its foreign
-- keys and indexes as sets) or of the logic (description, SQL, parameters
-- by name, auth), written by package store with the row: 32 hex digits,
-- the first 128 bits of a SHA-256. A column's or a key's position is not
-- in it. Two releases' tables of the same connection and name are the same
-- when their digests are equal, so a diff of two 10,000-table releases
-- compares 10,000 pairs of rows, not 300,000 column rows; only the tables
-- whose digests differ are read whole. NULL (a row written before this
-- migration) means unknown: such a table is compared in full.
--
-- Existing releases are indexed again from their files at the next open:
-- their file state is cleared, so the cache sees their files as changed.

ALTER TABLE tables ADD COLUMN digest TEXT;
ALTER TABLE logics ADD COLUMN digest TEXT;
UPDATE releases SET file_digest = '', file_size = -1;
