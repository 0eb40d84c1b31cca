-- A table's own foreign keys, read from an index alone.
--
-- schema_get_table reads a table's own keys through foreign_keys_by_table.
-- With the key's JSON a generated column, SQLite took every key's row from
-- foreign_keys too: it never counts a generated column as held by an
-- index, and the row lookup by the six-column primary key was a sixth of
-- the answer's time. foreign_keys.json is now a plain column, which
-- package store writes with the row (store/foreign_key.go, from the
-- columns beside it, by the expression migration 4 gave the generated
-- column), and foreign_keys_by_table holds it: a table's own keys are one
-- range read of the index.
--
-- The rows are copied as they are; no release is indexed again.

CREATE TABLE foreign_keys_new (
    release        INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    ref_connection TEXT    NOT NULL, -- the referenced table's connection
    ref_table      TEXT    NOT NULL, -- and name
    connection     TEXT    NOT NULL, -- the referencing table's connection
    table_name     TEXT    NOT NULL, -- and name
    position       INTEGER NOT NULL, -- order among the referencing table's keys, from 0
    table_id       INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    name           TEXT,             -- the key's name; NULL when unnamed
    columns        TEXT    NOT NULL, -- JSON array of the referencing columns, in key order
    ref_columns    TEXT    NOT NULL, -- JSON array of the referenced columns, same length
    on_delete      TEXT,             -- e.g. cascade; NULL when not given
    -- The key as schema_get_table shows it among the table's foreignKeys,
    -- written by package store from the columns above.
    json           TEXT    NOT NULL,
    -- The key as schema_get_table shows it among the referenced table's
    -- referencedBy.
    ref_json       TEXT GENERATED ALWAYS AS ('{"table":' || json_quote(table_name)
        || iif(connection = ref_connection, '', ',"connection":' || json_quote(connection))
        || iif(name IS NULL, '', ',"name":' || json_quote(name))
        || ',"columns":' || columns || ',"referencedColumns":' || ref_columns || '}') STORED,
    PRIMARY KEY (release, ref_connection, ref_table, connection, table_name, position)
) WITHOUT ROWID;

INSERT INTO foreign_keys_new (release, ref_connection, ref_table, connection, table_name, position,
        table_id, name, columns, ref_columns, on_delete, json)
    SELECT release, ref_connection, ref_table, connection, table_name, position,
        table_id, name, columns, ref_columns, on_delete, json
    FROM foreign_keys ORDER BY release, ref_connection, ref_table, connection, table_name, position;

DROP TABLE foreign_keys;
ALTER TABLE foreign_keys_new RENAME TO foreign_keys;
CREATE INDEX foreign_keys_by_table ON foreign_keys (table_id, position, json);
