-- The index of cached releases. Everything here is derived from the release
-- files under {cache}/releases/ and can be rebuilt from them.
--
-- Entities the tools look up by name (releases, tables, columns, foreign keys,
-- indexes, logics, params) are rows; ordered lists of names that are only ever
-- read whole (key columns, enum values, roles) are JSON arrays in their row.
-- Every child row hangs off its release through ON DELETE CASCADE, so a
-- release is removed with one DELETE and replaced inside one transaction.

CREATE TABLE releases (
    id          INTEGER PRIMARY KEY,
    project     TEXT    NOT NULL,
    release_id  TEXT    NOT NULL,
    environment TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    created_at  TEXT    NOT NULL,
    synced_at   TEXT    NOT NULL,
    source      TEXT    NOT NULL,  -- 'hub' or 'import'
    digest      TEXT    NOT NULL,  -- sha256 of the document as the Hub sent it
    file_digest TEXT    NOT NULL,  -- sha256 of the sanitized release file
    file_size   INTEGER NOT NULL,
    file_mtime  INTEGER NOT NULL,  -- unix nanoseconds; with file_size, a cheap change check
    table_count INTEGER NOT NULL,
    logic_count INTEGER NOT NULL,
    UNIQUE (project, release_id)
);

-- The current release of each project and environment, mirrored from the
-- {environment}.current files. Removing the release removes the pointer.
CREATE TABLE current_releases (
    project     TEXT    NOT NULL,
    environment TEXT    NOT NULL,
    release     INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    PRIMARY KEY (project, environment)
) WITHOUT ROWID;
CREATE INDEX current_releases_release ON current_releases (release);

CREATE TABLE connections (
    release  INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    name     TEXT    NOT NULL,
    engine   TEXT    NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (release, name)
) WITHOUT ROWID;

-- (release, connection, name) serves a qualified lookup and the tables of a
-- connection in order; (release, name, connection) serves a bare-name lookup
-- and its order without statistics (ANALYZE) or a sort.
CREATE TABLE tables (
    id          INTEGER PRIMARY KEY,
    release     INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    connection  TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    comment     TEXT    NOT NULL,
    position    INTEGER NOT NULL,
    primary_key TEXT    NOT NULL,  -- JSON array of column names, '[]' for none
    UNIQUE (release, connection, name)
);
CREATE INDEX tables_by_name ON tables (release, name, connection);

CREATE TABLE columns (
    table_id      INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    type          TEXT    NOT NULL,
    nullable      INTEGER NOT NULL,
    comment       TEXT    NOT NULL,
    default_value TEXT    NOT NULL,  -- '' for none
    enum_values   TEXT    NOT NULL,  -- JSON array, '[]' for none
    PRIMARY KEY (table_id, position)
) WITHOUT ROWID;

-- ref_connection/ref_table name the referenced table as the snapshot does; it
-- need not exist in the release. The (release, ref_connection, ref_table)
-- index answers "which foreign keys point at this table" (referencedBy).
CREATE TABLE foreign_keys (
    id             INTEGER PRIMARY KEY,
    table_id       INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    release        INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    name           TEXT    NOT NULL,
    columns        TEXT    NOT NULL,  -- JSON array
    ref_connection TEXT    NOT NULL,
    ref_table      TEXT    NOT NULL,
    ref_columns    TEXT    NOT NULL,  -- JSON array
    on_delete      TEXT    NOT NULL
);
CREATE INDEX foreign_keys_by_table ON foreign_keys (table_id, position);
CREATE INDEX foreign_keys_by_target ON foreign_keys (release, ref_connection, ref_table);

CREATE TABLE indexes (
    table_id  INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    position  INTEGER NOT NULL,
    name      TEXT    NOT NULL,
    columns   TEXT    NOT NULL,  -- JSON array
    is_unique INTEGER NOT NULL,
    PRIMARY KEY (table_id, position)
) WITHOUT ROWID;

CREATE TABLE logics (
    id            INTEGER PRIMARY KEY,
    release       INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    name          TEXT    NOT NULL,
    description   TEXT    NOT NULL,
    sql           TEXT    NOT NULL,
    auth_required INTEGER NOT NULL,
    auth_roles    TEXT    NOT NULL,  -- JSON array
    position      INTEGER NOT NULL,
    UNIQUE (release, name)
);

CREATE TABLE logic_params (
    logic_id INTEGER NOT NULL REFERENCES logics (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    name     TEXT    NOT NULL,
    type     TEXT    NOT NULL,
    required INTEGER NOT NULL,
    PRIMARY KEY (logic_id, position)
) WITHOUT ROWID;
