-- Full-text search over names, comments, descriptions and SQL (schema_search).
--
-- One row per table and one per logic, rather than one per column: a table
-- row carries its columns' names and comments, and package store tells
-- which column matched. That keeps indexing a 10,000-table release about
-- six times cheaper than a row per column.
--
-- The rowid of a table's row is the table's id; that of a logic's row is
-- the logic's id plus 2^31. Package store gives a release's tables and
-- logics ids from release << 32, so each release's search rows fill one
-- rowid range: searches and deletes of a release are range scans.
--
-- Columns, in the order of the bm25-free ranking package store applies:
--   name     the table's or logic's name, split into words
--   cols     column names (tables) or parameter names (logics), as words
--   comment  the table's comment or the logic's description
--   notes    the columns' comments (tables only)
--   body     the logic's SQL (logics only)
-- Text is stored as words separated by spaces (camelCase and snake_case
-- already split), and not kept by FTS5 (content=''): package store reads
-- the original text from the tables above. Diacritics are kept, as package
-- store matches them exactly.
CREATE VIRTUAL TABLE search USING fts5 (
    name, cols, comment, notes, body,
    content = '',
    contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 0'
);

-- The distinct words of each release's search rows, with the search
-- columns they occur in: bit (column number + 5 for a logic's row), so
-- tables' name, cols, comment, notes are 1, 2, 4, 8 and logics' name, cols,
-- comment, body are 32, 64, 128, 512. A search expands a prefix into the
-- words it stands for here and skips the steps whose columns cannot match,
-- instead of making FTS5 merge every word with that prefix in every step.
CREATE TABLE search_words (
    release INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    word    TEXT    NOT NULL,
    columns INTEGER NOT NULL,
    PRIMARY KEY (release, word)
) WITHOUT ROWID;

-- Each table's and logic's name as words joined by spaces ("order_lines"
-- and "OrderLines" are both "order lines"), to find exact names at once
-- however many other names hold the same words. row is the search rowid.
CREATE TABLE search_names (
    release INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
    name    TEXT    NOT NULL,
    row     INTEGER NOT NULL,
    PRIMARY KEY (release, name, row)
) WITHOUT ROWID;

-- Releases indexed before search existed have no search rows, and their
-- row ids do not follow the ranges above. The index is derived data:
-- empty it, and the next open rebuilds it from the release files.
DELETE FROM releases;
