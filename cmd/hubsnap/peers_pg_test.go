package main

// The other side of BenchmarkPeers: a real PostgreSQL holding the synthetic
// release's schema, and the peer MCP servers installed by .ci/peers.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/analysis/pgoracle"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// peersDirEnv names the folder .ci/peers installs the peers into; its
// default is ~/.cache/hubsnap-peers, as in the script.
const peersDirEnv = "HUBSNAP_PEERS_DIR"

// peerEntries are the peers' programs, under the peers folder, run with
// node.
var peerEntries = map[string]string{
	"dbhub":           "node_modules/@bytebase/dbhub/dist/index.js",
	"server-postgres": "node_modules/@modelcontextprotocol/server-postgres/dist/index.js",
}

// findPeers returns node and the peers folder, or skips the benchmark
// with one line when node or a peer is absent.
func findPeers(b *testing.B) (node, dir string) {
	b.Helper()
	dir = os.Getenv(peersDirEnv)
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			b.Skipf("peers: skipped, no cache folder (%v) and %s is not set; run .ci/peers", err, peersDirEnv)
		}
		dir = filepath.Join(cache, "hubsnap-peers")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skipf("peers: skipped, node is not installed; run .ci/peers")
	}
	for name, entry := range peerEntries {
		if _, err := os.Stat(filepath.Join(dir, entry)); err != nil {
			b.Skipf("peers: skipped, %s is not installed in %s; run .ci/peers", name, dir)
		}
	}
	return node, dir
}

// pgTypes maps the snapshot's portable types (storetest's) to PostgreSQL's.
var pgTypes = map[string]string{
	"string": "text", "integer": "integer", "decimal": "numeric(12,2)", "timestamp": "timestamptz",
	"json": "jsonb", "boolean": "boolean",
}

// peersDDL is the SQL that creates the release's tables in PostgreSQL, in
// batches small enough for one transaction's locks: the tables with their
// types, NOT NULL, defaults, primary keys and comments (one enum type per
// set of enum values), then the indexes and foreign keys. Every table goes
// into the public schema, whatever its connection: the peers see one
// database.
func peersDDL(tables []snapshot.Table) (creates, keys []string, err error) {
	enums := map[string]string{} // values joined -> type name
	var batch []string
	flush := func(dst *[]string) {
		if len(batch) > 0 {
			*dst = append(*dst, strings.Join(batch, ";\n"))
			batch = batch[:0]
		}
	}
	for i, t := range tables {
		var defs []string
		for _, c := range t.Columns {
			typ, ok := pgTypes[c.Type]
			if !ok {
				return nil, nil, fmt.Errorf("table %s column %s: no PostgreSQL type for %q", t.Name, c.Name, c.Type)
			}
			if len(c.Enum) > 0 {
				key := strings.Join(c.Enum, "\x00")
				if enums[key] == "" {
					enums[key] = fmt.Sprintf("enum%d", len(enums)+1)
					vals := make([]string, len(c.Enum))
					for i, v := range c.Enum {
						vals[i] = pgLiteral(v)
					}
					batch = append(batch, fmt.Sprintf("CREATE TYPE %s AS ENUM (%s)", enums[key], strings.Join(vals, ", ")))
				}
				typ = enums[key]
			}
			def := pgIdent(c.Name) + " " + typ
			if !c.Nullable {
				def += " NOT NULL"
			}
			if c.Default != "" {
				def += " DEFAULT " + c.Default
			}
			defs = append(defs, def)
		}
		if len(t.PrimaryKey) > 0 {
			defs = append(defs, "PRIMARY KEY ("+pgIdents(t.PrimaryKey)+")")
		}
		batch = append(batch, fmt.Sprintf("CREATE TABLE %s (%s)", pgIdent(t.Name), strings.Join(defs, ", ")))
		if t.Comment != "" {
			batch = append(batch, fmt.Sprintf("COMMENT ON TABLE %s IS %s", pgIdent(t.Name), pgLiteral(t.Comment)))
		}
		for _, c := range t.Columns {
			if c.Comment != "" {
				batch = append(batch, fmt.Sprintf("COMMENT ON COLUMN %s.%s IS %s", pgIdent(t.Name), pgIdent(c.Name), pgLiteral(c.Comment)))
			}
		}
		if i%50 == 49 {
			flush(&creates)
		}
	}
	flush(&creates)
	names := make(map[string]bool, len(tables))
	for _, t := range tables {
		names[t.Name] = true
	}
	for i, t := range tables {
		for _, ix := range t.Indexes {
			unique := ""
			if ix.Unique {
				unique = "UNIQUE "
			}
			batch = append(batch, fmt.Sprintf("CREATE %sINDEX %s ON %s (%s)", unique, pgIdent(ix.Name), pgIdent(t.Name), pgIdents(ix.Columns)))
		}
		for _, fk := range t.ForeignKeys {
			if !names[fk.RefTable] {
				continue // a key to a table past a small release's end
			}
			stmt := fmt.Sprintf("ALTER TABLE %s ADD CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s)", pgIdent(t.Name),
				pgIdent(fk.Name), pgIdents(fk.Columns), pgIdent(fk.RefTable), pgIdents(fk.RefColumns))
			if fk.OnDelete != "" {
				stmt += " ON DELETE " + strings.ToUpper(strings.ReplaceAll(fk.OnDelete, "_", " "))
			}
			batch = append(batch, stmt)
		}
		if i%50 == 49 {
			flush(&keys)
		}
	}
	flush(&keys)
	return creates, keys, nil
}

// loadPeersSchema starts a private PostgreSQL cluster (pgoracle.Start
// skips the benchmark with one line when there is none), creates the
// tables in its postgres database and returns the folder of its unix
// socket.
func loadPeersSchema(b *testing.B, tables []snapshot.Table) (socketDir string) {
	b.Helper()
	srv := pgoracle.Start(b)
	creates, keys, err := peersDDL(tables)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	conn, err := srv.Connect(ctx, "postgres", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	start := time.Now()
	for _, sql := range append(creates, keys...) {
		// Each batch runs as one implicit transaction (the simple protocol).
		if _, err := conn.Exec(ctx, sql, pgx.QueryExecModeSimpleProtocol); err != nil {
			b.Fatalf("create the schema in PostgreSQL: %v", err)
		}
	}
	if _, err := conn.Exec(ctx, "ANALYZE"); err != nil {
		b.Fatalf("analyze: %v", err)
	}
	b.Logf("PostgreSQL %s: %d tables created in %v", srv.Version, len(tables), time.Since(start).Round(time.Millisecond))
	return conn.Config().Host
}

// pgIdent quotes an identifier.
func pgIdent(s string) string { return pgx.Identifier{s}.Sanitize() }

// pgIdents quotes and joins identifiers.
func pgIdents(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = pgIdent(n)
	}
	return strings.Join(q, ", ")
}

// pgLiteral quotes a string literal (standard_conforming_strings is on).
func pgLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// dbhubPeer is @bytebase/dbhub over stdio, its DSN pointing at the
// cluster's socket (an empty host in the DSN: pg reads PGHOST), answering
// search_objects for one table in full: columns (type, nullable, default,
// comment), indexes (the primary key among them), the table's comment
// and estimated row count.
func dbhubPeer(b *testing.B, client *mcp.Client, node, dir, socket string) *peer {
	cmd := exec.Command(node, dir+"/"+peerEntries["dbhub"], "--transport", "stdio",
		"--dsn", "postgres://postgres@/postgres?sslmode=disable")
	cmd.Dir = b.TempDir() // no dbhub.toml or .env of ours is read
	cmd.Env = append(os.Environ(), "PGHOST="+socket)
	cs, stderr := connectPeer(b, client, "dbhub", cmd, time.Second)
	return &peer{name: "dbhub", role: rolePeer, cmd: cmd, cs: cs, stderr: stderr,
		describe: func(ctx context.Context, cs *mcp.ClientSession, table string) (string, error) {
			return callText(ctx, cs, "search_objects", map[string]any{"object_type": "table", "pattern": table,
				"schema": "public", "detail_level": "full"})
		},
		check: func(text, table string, cols int) string {
			var got struct {
				Success bool `json:"success"`
				Data    struct {
					Results []struct {
						Name    string `json:"name"`
						Columns []any  `json:"columns"`
					} `json:"results"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				return err.Error()
			}
			if !got.Success || len(got.Data.Results) != 1 {
				return fmt.Sprintf("success %v with %d results, want one", got.Success, len(got.Data.Results))
			}
			return checkColumns(got.Data.Results[0].Name, table, len(got.Data.Results[0].Columns), cols)
		}}
}

// serverPostgresPeer is @modelcontextprotocol/server-postgres over stdio
// (its connection string names the socket's folder as host), answering
// resources/read of postgres://postgres@localhost/<table>/schema, as its
// resources/list names them: each column's name and data type.
func serverPostgresPeer(b *testing.B, client *mcp.Client, node, dir, socket string) *peer {
	cmd := exec.Command(node, dir+"/"+peerEntries["server-postgres"],
		"postgresql://postgres@localhost/postgres?host="+socket)
	cmd.Dir = b.TempDir()
	cs, stderr := connectPeer(b, client, "server-postgres", cmd, time.Second)
	return &peer{name: "server-postgres", role: rolePeer, cmd: cmd, cs: cs, stderr: stderr,
		describe: func(ctx context.Context, cs *mcp.ClientSession, table string) (string, error) {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "postgres://postgres@localhost/" + table + "/schema"})
			if err != nil {
				return "", err
			}
			if len(res.Contents) != 1 {
				return "", fmt.Errorf("%d contents, want 1", len(res.Contents))
			}
			return res.Contents[0].Text, nil
		},
		check: func(text, _ string, cols int) string {
			var got []struct {
				Name string `json:"column_name"`
				Type string `json:"data_type"`
			}
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				return err.Error()
			}
			return checkColumns("", "", len(got), cols)
		}}
}
