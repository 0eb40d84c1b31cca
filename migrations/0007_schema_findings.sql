-- Schema lint (`hubsnap snapshot check`, release_check, release_info's
-- schemaProblems; docs/index.md, "schema_findings").
--
-- The rules that judge a table by its own rows and its foreign keys'
-- targets are run once, when the release is indexed, by package store
-- (store/lint_rules.go). Their findings are rows here, in the order
-- `snapshot check` and release_check give them: by rule, then by the
-- table's position in the snapshot, then by the foreign key and the key
-- column the finding is about. Each rule's findings are one range of the
-- primary key, so a page of them, or of one rule, is one range read.
--
-- MISSING_COMMENT is not stored: a table or column without a comment is
-- already a row with a NULL comment, and the rule's findings (millions on
-- a large schema) are read from tables and columns at call time.

CREATE TABLE schema_findings (
    release     INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    rule        INTEGER NOT NULL, -- 1 NO_PRIMARY_KEY, 2 FK_WITHOUT_INDEX, 3 FK_TYPE_MISMATCH, 4 DUPLICATE_FOREIGN_KEY
    table_id    INTEGER NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    item        INTEGER NOT NULL, -- the foreign key's position in its table; 0 for NO_PRIMARY_KEY
    part        INTEGER NOT NULL, -- the key column's place in the key (FK_TYPE_MISMATCH), else 0
    code        TEXT    NOT NULL, -- the rule's code, e.g. FK_WITHOUT_INDEX
    column_name TEXT,             -- the column it is about; NULL for the table, or a key of several columns
    message     TEXT    NOT NULL, -- what is wrong, for a person
    PRIMARY KEY (release, rule, table_id, item, part)
) WITHOUT ROWID;

-- How many findings each stored rule has in each release, written with
-- it (a row per rule, zeros too): a page's total without a count of rows.
CREATE TABLE schema_finding_counts (
    release  INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    rule     INTEGER NOT NULL, -- as schema_findings.rule
    code     TEXT    NOT NULL,
    findings INTEGER NOT NULL,
    PRIMARY KEY (release, rule)
) WITHOUT ROWID;

-- What `snapshot check` counts of each release, written with it: the
-- number of schema findings (release_info's schemaProblems), and the
-- columns and the tables and columns with a comment (commentCoverage).
CREATE TABLE release_checks (
    release         INTEGER PRIMARY KEY REFERENCES releases (id) ON DELETE CASCADE,
    schema_problems INTEGER NOT NULL, -- rows of schema_findings
    column_count    INTEGER NOT NULL, -- columns of all its tables
    commented_count INTEGER NOT NULL  -- tables and columns whose comment is not blank
);

-- Existing releases are indexed again from their files at the next open,
-- which writes their findings: their file state is cleared, so the cache
-- sees their files as changed (as migration 5 did).
UPDATE releases SET file_digest = '', file_size = -1;
