-- Logic analysis (SPEC §11; docs/index.md, "Logic analysis"): what each
-- logic of a release with a postgres connection means against that
-- release's tables, found once by package indexer/analysis (PostgreSQL's
-- own parser) and written as rows, which the tools read at call time.
--
-- The rows are written in the release's own transaction by the process
-- that indexes it (hubsnap snapshot sync, index, ...). serve never parses
-- SQL: a release it indexes gets release_analysis.state 'pending' and no
-- logic rows, and a child process (hubsnap index analyze) fills them and
-- sets 'done' in one later transaction.

-- One row per analysed logic.
CREATE TABLE logic_analysis (
    logic_id      INTEGER PRIMARY KEY REFERENCES logics (id) ON DELETE CASCADE,
    statement     TEXT    NOT NULL,      -- select insert update delete merge other
    returns_rows  INTEGER NOT NULL,      -- 0: §11's "result" is null
    unjudged      TEXT    NOT NULL,      -- '' when judged whole, else why not
    result_count  INTEGER NOT NULL,
    binding_count INTEGER NOT NULL,
    problem_count INTEGER NOT NULL
);

-- The columns of one row of the logic's answer.
CREATE TABLE logic_results (
    logic_id INTEGER NOT NULL REFERENCES logics (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,           -- 0-based, the answer's order
    name TEXT NOT NULL, type TEXT NOT NULL, nullable INTEGER NOT NULL,
    source_table TEXT, source_column TEXT, -- NULL when not a column
    PRIMARY KEY (logic_id, position)) WITHOUT ROWID;

-- What a logic touches; serves usedBy (the logics of one table are one
-- range of the primary key).
CREATE TABLE logic_tables (
    release INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    connection TEXT NOT NULL, table_name TEXT NOT NULL,
    logic_id INTEGER NOT NULL REFERENCES logics (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,           -- order within the logic's "tables"
    access TEXT NOT NULL,                -- read write read_write
    PRIMARY KEY (release, connection, table_name, logic_id)) WITHOUT ROWID;
CREATE INDEX logic_tables_by_logic ON logic_tables (logic_id, position);

-- Where each placeholder goes.
CREATE TABLE logic_bindings (
    logic_id INTEGER NOT NULL REFERENCES logics (id) ON DELETE CASCADE,
    position INTEGER NOT NULL, param TEXT NOT NULL,
    table_name TEXT NOT NULL, column_name TEXT NOT NULL,
    PRIMARY KEY (logic_id, position)) WITHOUT ROWID;

-- The problems found, in the order the analysis met them.
CREATE TABLE logic_problems (
    logic_id INTEGER NOT NULL REFERENCES logics (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,           -- 0-based order of the problems
    code TEXT NOT NULL, message TEXT NOT NULL,
    sql_position INTEGER,                -- 1-based character offset, NULL unknown
    PRIMARY KEY (logic_id, position)) WITHOUT ROWID;

-- Whether a release's logics are analysed. No row: the release has no
-- postgres connection, and nothing is analysed.
CREATE TABLE release_analysis (
    release INTEGER PRIMARY KEY REFERENCES releases (id) ON DELETE CASCADE,
    state TEXT NOT NULL,                 -- 'done' or 'pending'
    logic_problems INTEGER NOT NULL      -- logics with at least one problem
);

-- Releases indexed before this migration are analysed at the next open
-- by a process that parses SQL (any writer but serve, which starts one):
-- each release with a postgres connection is marked pending. Its rows are
-- then written without indexing its file again.
INSERT INTO release_analysis (release, state, logic_problems)
SELECT r.id, 'pending', 0 FROM releases r
WHERE EXISTS (SELECT 1 FROM connections c WHERE c.release = r.id
    AND lower(trim(c.engine)) IN ('postgres', 'postgresql'));
