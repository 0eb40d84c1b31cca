-- The relational index (docs/index.md describes every table and column).
--
-- A cached release is rows of readable tables: releases, tables, columns,
-- foreign_keys, indexes, logics and logic_params, plus the search tables.
-- Nothing is an opaque encoded blob; ordered lists of names that are only
-- read whole (the columns of a key or an index, enum values, roles) are
-- JSON arrays of strings, which sqlite3 shows as they are and json_each()
-- takes apart. A value the snapshot leaves out (a comment, a default, a
-- foreign key's name) is NULL.
--
-- Every answer of the MCP tools is composed by one SQL statement over
-- these rows (package store), so they are indexed by parent and position.
-- Every child row hangs off its release through ON DELETE CASCADE: a
-- release is removed with one DELETE and replaced inside one transaction.
--
-- This migration replaces the whole schema of migrations 1 to 3. The index
-- is derived data: it starts empty, and the next open rebuilds it from the
-- release files.

DROP TABLE IF EXISTS search_names;
DROP TABLE IF EXISTS search_words;
DROP TABLE IF EXISTS search;
DROP TABLE IF EXISTS logic_params;
DROP TABLE IF EXISTS logics;
DROP TABLE IF EXISTS indexes;
DROP TABLE IF EXISTS foreign_keys;
DROP TABLE IF EXISTS columns;
DROP TABLE IF EXISTS tables;
DROP TABLE IF EXISTS connections;
DROP TABLE IF EXISTS current_releases;
DROP TABLE IF EXISTS releases;

-- One row per cached release of a project.
CREATE TABLE releases (
    id          INTEGER PRIMARY KEY,
    project     TEXT    NOT NULL,
    release_id  TEXT    NOT NULL,  -- the Hub's id, e.g. rel_42
    environment TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    created_at  TEXT    NOT NULL,  -- as the Hub wrote it
    synced_at   TEXT    NOT NULL,  -- when it entered this cache, RFC 3339 UTC
    source      TEXT    NOT NULL,  -- 'hub' or 'import'
    digest      TEXT    NOT NULL,  -- sha256 of the document as received
    file_digest TEXT    NOT NULL,  -- sha256 of the sanitized release file
    file_size   INTEGER NOT NULL,
    file_mtime  INTEGER NOT NULL,  -- unix nanoseconds; with file_size, a cheap change check
    table_count INTEGER NOT NULL,
    logic_count INTEGER NOT NULL,
    UNIQUE (project, release_id)
);
-- The releases of a project and environment by version: schema_diff's
-- default "from", release_info's otherReleases, snapshot prune.
CREATE INDEX releases_by_version ON releases (project, environment, version);

-- The current release of each project and environment, mirrored from the
-- {environment}.current files. Removing the release removes the pointer.
CREATE TABLE current_releases (
    project     TEXT    NOT NULL,
    environment TEXT    NOT NULL,
    release     INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    PRIMARY KEY (project, environment)
) WITHOUT ROWID;
CREATE INDEX current_releases_release ON current_releases (release);

-- The database connections a release's tables live in (never their URLs).
CREATE TABLE connections (
    release  INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    name     TEXT    NOT NULL,
    engine   TEXT,             -- e.g. postgres; NULL when not given
    position INTEGER NOT NULL, -- order in the snapshot, from 0
    PRIMARY KEY (release, name)
) WITHOUT ROWID;

-- Row ids: package store gives a release's tables and logics the ids
-- release << 32 + n, so each release's rows (and its search rows) fill one
-- id range. (release, connection, name) serves a qualified lookup and a
-- connection's tables in order; (release, name, connection) a bare name.
CREATE TABLE tables (
    id         INTEGER PRIMARY KEY,
    release    INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    connection TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    comment    TEXT,             -- NULL when none
    position   INTEGER NOT NULL, -- order in the snapshot, from 0
    UNIQUE (release, connection, name)
);
CREATE INDEX tables_by_name ON tables (release, name, connection);

CREATE TABLE columns (
    table_id      INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL, -- order in the table, from 0
    name          TEXT    NOT NULL,
    type          TEXT    NOT NULL,
    nullable      INTEGER NOT NULL, -- 1 or 0
    comment       TEXT,             -- NULL when none
    default_value TEXT,             -- the default expression as written; NULL when none
    enum_values   TEXT,             -- JSON array of the allowed values; NULL when none
    pk_position   INTEGER,          -- place in the primary key, from 1; NULL when not in it
    -- The column as schema_get_table shows it, computed from the above.
    json          TEXT GENERATED ALWAYS AS ('{"name":' || json_quote(name) || ',"type":' || json_quote(type)
        || ',"nullable":' || iif(nullable, 'true', 'false')
        || iif(comment IS NULL, '', ',"comment":' || json_quote(comment))
        || iif(default_value IS NULL, '', ',"default":' || json_quote(default_value))
        || iif(enum_values IS NULL, '', ',"enum":' || enum_values) || '}') STORED,
    PRIMARY KEY (table_id, position)
) WITHOUT ROWID;
-- A table's primary key, in key order, without reading its other columns.
CREATE INDEX columns_pk ON columns (table_id, pk_position, name, type) WHERE pk_position IS NOT NULL;

-- A foreign key of a table: the referencing table (its id, and its
-- connection and name repeated, so that "what points at users" needs no
-- join), the columns, and the referenced table as the snapshot names it,
-- which need not be in the release. Rows are kept in the order of the
-- table they point at, and then of the referencing table: what points at a
-- table (referencedBy, join paths) is one range read in answer order; a
-- table's own keys are found through foreign_keys_by_table.
CREATE TABLE foreign_keys (
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
    -- and among the referenced table's referencedBy.
    json           TEXT GENERATED ALWAYS AS ('{' || iif(name IS NULL, '', '"name":' || json_quote(name) || ',')
        || iif(json_array_length(columns) = 1, '"column":' || (columns -> 0) || ',', '')
        || '"columns":' || columns
        || ',"references":{"table":' || json_quote(ref_table)
        || iif(ref_connection = connection, '', ',"connection":' || json_quote(ref_connection))
        || iif(json_array_length(ref_columns) = 1, ',"column":' || (ref_columns -> 0), '')
        || ',"columns":' || ref_columns || '}'
        || iif(on_delete IS NULL, '', ',"onDelete":' || json_quote(on_delete)) || '}') STORED,
    ref_json       TEXT GENERATED ALWAYS AS ('{"table":' || json_quote(table_name)
        || iif(connection = ref_connection, '', ',"connection":' || json_quote(connection))
        || iif(name IS NULL, '', ',"name":' || json_quote(name))
        || ',"columns":' || columns || ',"referencedColumns":' || ref_columns || '}') STORED,
    PRIMARY KEY (release, ref_connection, ref_table, connection, table_name, position)
) WITHOUT ROWID;
CREATE INDEX foreign_keys_by_table ON foreign_keys (table_id, position);

CREATE TABLE indexes (
    table_id  INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    position  INTEGER NOT NULL, -- order in the table, from 0
    name      TEXT,             -- NULL when unnamed
    columns   TEXT    NOT NULL, -- JSON array of the indexed columns
    is_unique INTEGER NOT NULL, -- 1 or 0
    json      TEXT GENERATED ALWAYS AS ('{' || iif(name IS NULL, '', '"name":' || json_quote(name) || ',')
        || '"columns":' || columns || ',"unique":' || iif(is_unique, 'true', 'false') || '}') STORED,
    PRIMARY KEY (table_id, position)
) WITHOUT ROWID;

CREATE TABLE logics (
    id            INTEGER PRIMARY KEY,
    release       INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    name          TEXT    NOT NULL, -- e.g. admin/users
    description   TEXT,             -- NULL when none
    sql           TEXT    NOT NULL,
    auth_required INTEGER NOT NULL, -- 1 or 0
    auth_roles    TEXT    NOT NULL, -- JSON array of role names, '[]' for none
    position      INTEGER NOT NULL, -- order in the snapshot, from 0
    UNIQUE (release, name)
);

CREATE TABLE logic_params (
    logic_id INTEGER NOT NULL REFERENCES logics (id) ON DELETE CASCADE,
    position INTEGER NOT NULL, -- order in the logic, from 0
    name     TEXT    NOT NULL,
    type     TEXT    NOT NULL, -- '' when not given
    required INTEGER NOT NULL, -- 1 or 0
    PRIMARY KEY (logic_id, position)
) WITHOUT ROWID;

-- Full-text search over names, comments, descriptions and SQL
-- (schema_search): one row per table and one per logic. The rowid of a
-- table's row is the table's id; that of a logic's row is the logic's id
-- plus 2^31, so each release's search rows fill its id range.
--
-- Columns, in the order of the ranking package store applies:
--   name     the table's or logic's name, split into words
--   cols     column names (tables) or parameter names (logics), as words
--   comment  the table's comment or the logic's description
--   notes    the columns' comments (tables only)
--   body     the logic's SQL (logics only)
-- Text is stored as lower-case words separated by spaces (camelCase and
-- snake_case already split) and not kept by FTS5 (content=''): package
-- store reads the original text from the tables above.
CREATE VIRTUAL TABLE search USING fts5 (
    name, cols, comment, notes, body,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0',
    detail = column  -- which columns hold a word, not where in them: no phrase search needed
);
-- The whole index is merged after each release is written, so merging it
-- bit by bit while one is written (automerge) would be work done twice.
INSERT INTO search (search, rank) VALUES ('automerge', 0);

-- The distinct words of each release's search rows, with the search
-- columns they occur in: bit (column number + 5 for a logic's row), so
-- tables' name, cols, comment, notes are 1, 2, 4, 8 and logics' name,
-- cols, comment, body are 32, 64, 128, 512. A search expands a prefix into
-- the words it stands for here and skips the steps whose columns cannot
-- match.
CREATE TABLE search_words (
    release INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    word    TEXT    NOT NULL,
    columns INTEGER NOT NULL,
    PRIMARY KEY (release, word)
) WITHOUT ROWID;

-- Each table's and logic's name as words joined by spaces ("order_lines"
-- and "OrderLines" are both "order lines"), to find exact names at once.
-- row is the search rowid.
CREATE TABLE search_names (
    release INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    name    TEXT    NOT NULL,
    row     INTEGER NOT NULL,
    PRIMARY KEY (release, name, row)
) WITHOUT ROWID;
