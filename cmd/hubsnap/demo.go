package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	hubclient "github.com/hubsnap/hubsnap/indexer/hub"
	"github.com/hubsnap/hubsnap/indexer/hubtest"
)

// demoRelease is the sample release the demo serves: the seeds' users,
// posts, purchase_item and admin/users, and a few more. Its connection
// URLs and logic secret are fake, there to show that they never reach the
// cache or an answer.
//
//go:embed demo_release.json
var demoRelease []byte

// demoPrevious is the release before demoRelease (rel_41, version 41): a
// table and a logic fewer, a table more, a column renamed, a nullable
// column, a foreign key missing, older SQL. The demo syncs it first, so
// that schema_diff has something to compare.
//
//go:embed demo_release_41.json
var demoPrevious []byte

// demoSecrets are the sensitive values in demoRelease, which must never
// reach the cache or an answer. Read only (TestDemo checks for them too).
var demoSecrets = []string{"demo-password-not-real", "sk_live_demo_not_real", "postgres://", "clickhouse://"}

// demoCall is one tool call the demo makes.
type demoCall struct {
	why  string
	tool string
	args map[string]any
}

// demoCalls are the tool calls the demo makes, in order.
func demoCalls() []demoCall {
	return []demoCall{
		{"What tables are there?", "schema_list_tables", map[string]any{}},
		{"The columns and keys of posts (MCP-002)", "schema_get_table", map[string]any{"table": "posts"}},
		{"A bare name in two connections is ambiguous", "schema_get_table", map[string]any{"table": "users"}},
		{"...so ask for one of them", "schema_get_table", map[string]any{"table": "main.users"}},
		{"A composite primary key", "schema_get_table", map[string]any{"table": "order_lines"}},
		{"How to join two tables: the foreign keys between them, as SQL", "schema_join_path",
			map[string]any{"from": "main.users", "to": "items"}},
		{"A table's neighbourhood as Mermaid text (hosts with MCP Apps draw it)", "schema_diagram",
			map[string]any{"table": "main.users", "hops": 2}},
		{"An unknown table names only what was asked", "schema_get_table", map[string]any{"table": "invoices"}},
		{"Search by words: any case style, prefixes, comments, SQL", "schema_search", map[string]any{"query": "displayName"}},
		{"...best first: names, then params, comments and SQL", "schema_search", map[string]any{"query": "user", "limit": 8}},
		{"What logics are there?", "logic_list", map[string]any{}},
		{"A logic's SQL, params and auth (MCP-005), and its analysis: a result row's typed columns,\n   # the tables it touches, the column each param binds to, its problems", "logic_get", map[string]any{"name": "purchase_item"}},
		{"The logics/ prefix is accepted", "logic_get", map[string]any{"name": "logics/admin/users"}},
		{"Which release is this?", "release_info", map[string]any{}},
		{"Review its schema as a team's CI would", "release_check", map[string]any{}},
		{"What changed since the release before it?", "schema_diff", map[string]any{}},
	}
}

// demoOptions is what `hubsnap demo` works with.
type demoOptions struct {
	Stdout, Stderr io.Writer // the walk-through; the serve child's log
	Log            *slog.Logger
	// CacheDir is --cache-dir: sync there and keep the cache. "" syncs into
	// a temporary folder, removed at the end: the demo never touches the
	// cache of the settings.
	CacheDir string
}

func (a *app) newDemoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "Run the whole thing on a built-in sample: Hub, sync, index, MCP over stdio",
		Long: `Runs hubsnap's main job on a built-in sample release, with no Hub, no network and
no setup: an in-process Hub on a loopback port serves the sample, hubsnap syncs it
for real into a temporary cache (or --cache-dir), then starts "hubsnap serve" as a
child process and talks MCP to it over stdio, printing each tool call and answer.
It never touches your own cache unless you give --cache-dir.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := &demoOptions{Stdout: a.stdout, Stderr: a.stderr, Log: a.log}
			if cmd.Flags().Changed("cache-dir") { // only the flag, never the env or the default
				opts.CacheDir = a.flags.cacheDir
			}
			return runDemo(cmd.Context(), opts)
		},
	}
}

// runDemo runs hubsnap on the embedded sample: an in-process Hub
// (hubtest), a real indexer.Sync, and this program's own serve, started as
// a child and spoken to over stdio. It prints each step for a person.
func runDemo(ctx context.Context, opts *demoOptions) error {
	w := opts.Stdout
	dir := opts.CacheDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "hubsnap-demo-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = filepath.Join(tmp, "cache")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := demoSync(ctx, w, dir, opts.Log); err != nil {
		return err
	}
	if err := demoDiff(ctx, w, dir, opts.Log); err != nil {
		return err
	}
	if err := demoCheck(ctx, w, dir, opts.Log); err != nil {
		return err
	}
	if err := demoServe(ctx, opts, dir); err != nil {
		return err
	}
	io.WriteString(w, demoConnect)
	return nil
}

// demoSync starts the in-process Hub and syncs its two releases into dir,
// showing that no secret reached the cache.
func demoSync(ctx context.Context, w io.Writer, dir string, log *slog.Logger) error {
	const token = "demo-token"
	hub := hubtest.New()
	defer hub.Close()
	hub.Token = token
	hub.Add("shop", demoPrevious)
	hub.Add("shop", demoRelease)
	fmt.Fprintf(w, "1. An in-process Hub serves two sample releases at %s (it wants a bearer token).\n\n", hub.URL())

	client, err := hubclient.New(hub.URL(), hubclient.Options{Token: token})
	if err != nil {
		return err
	}
	sync := func(release string) (indexer.Result, error) {
		res, err := indexer.Sync(ctx, indexer.SyncOptions{CacheDir: dir, Hub: client, Project: "shop", Environment: "dev",
			Release: release, Log: log})
		if err != nil {
			return res, fmt.Errorf("demo sync: %w", err)
		}
		return res, nil
	}
	res, err := sync("rel_41")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "2. hubsnap snapshot sync --hub %s --project shop --release rel_41\n   %s\n", hub.URL(), summary("synced", res))
	if res, err = sync(""); err != nil {
		return err
	}
	fmt.Fprintf(w, "   hubsnap snapshot sync --hub %s --project shop\n   %s\n", hub.URL(), summary("synced", res))
	fmt.Fprintf(w, "   into %s:\n", dir)
	if err := listCache(w, dir); err != nil {
		return err
	}
	if found := findInFiles(dir, demoSecrets); len(found) > 0 {
		return fmt.Errorf("demo: sensitive values reached the cache: %v", found)
	}
	fmt.Fprintf(w, "   The sample's connection URLs, passwords and logic secret were dropped: none is in the cache.\n\n")
	return nil
}

// demoServe starts this program's own serve on dir as a child, as an
// assistant would, and prints its tools and the answers of demoCalls.
func demoServe(ctx context.Context, opts *demoOptions, dir string) error {
	w := opts.Stdout
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("demo: find this program: %w", err)
	}
	serve := exec.CommandContext(ctx, exe, "serve", "--cache-dir", dir, "--project", "shop", "--environment", "dev")
	serve.Env = demoEnv(dir)
	serve.Stderr = opts.Stderr
	fmt.Fprintf(w, "4. hubsnap serve, started as an assistant would, spoken to over stdio by an MCP client:\n\n")
	session, err := mcp.NewClient(&mcp.Implementation{Name: "hubsnap-demo", Version: version()}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: serve, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		return fmt.Errorf("demo: start hubsnap serve: %w", err)
	}
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("demo: list tools: %w", err)
	}
	fmt.Fprintf(w, "   tools/list:\n")
	for _, t := range tools.Tools {
		first, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(w, "   - %-18s %s\n", t.Name, first)
	}
	fmt.Fprintln(w)

	var answers bytes.Buffer
	for _, c := range demoCalls() {
		argJSON, _ := json.Marshal(c.args)
		fmt.Fprintf(w, "   # %s\n   -> %s %s\n", c.why, c.tool, argJSON)
		r, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			return fmt.Errorf("demo: call %s: %w", c.tool, err)
		}
		text := ""
		if len(r.Content) > 0 {
			if tc, ok := r.Content[0].(*mcp.TextContent); ok {
				text = tc.Text
			}
		}
		answers.WriteString(text)
		prefix := "   <- "
		if r.IsError {
			prefix = "   <- (isError) "
		}
		shown := indentJSON(text, "      ")
		if shown == text { // not JSON: schema_diagram's Mermaid
			shown = strings.ReplaceAll(strings.TrimSuffix(text, "\n"), "\n", "\n      ")
		}
		fmt.Fprintf(w, "%s%s\n\n", prefix, shown)
	}
	for _, s := range demoSecrets {
		if strings.Contains(answers.String(), s) {
			return fmt.Errorf("demo: an answer holds %q", s)
		}
	}

	return nil
}

// demoConnect is the demo's last step: how to connect an assistant.
const demoConnect = `5. Connect your assistant to your own project:

   hubsnap context set work --hub https://hub.example.com --project shop
   printf '%s\n' "$HUB_TOKEN" | hubsnap context set work --token-stdin
   hubsnap snapshot sync

   Claude Code:
   claude mcp add hubsnap -- hubsnap serve

   Other MCP clients (Cursor, Claude Desktop, ...):
   {
     "mcpServers": {
       "hubsnap": {"command": "hubsnap", "args": ["serve"]}
     }
   }

   A team, over Streamable HTTP with a token:
   hubsnap token create alice --scopes table:read,logic:read
   hubsnap serve --http 0.0.0.0:7420
   claude mcp add --transport http hubsnap http://HOST:7420/mcp --header "Authorization: Bearer TOKEN"
`

// demoDiff prints what `hubsnap snapshot diff` shows a person after the
// demo's two syncs.
func demoDiff(ctx context.Context, w io.Writer, dir string, log *slog.Logger) error {
	fmt.Fprintf(w, "3. hubsnap snapshot diff: what changed from rel_41 to rel_42, for a person:\n\n")
	var report bytes.Buffer
	err := runDiff(ctx, &diffOptions{Stdout: &report, Log: log, CacheDir: dir, Project: "shop", Environment: "dev"})
	if err != nil {
		return fmt.Errorf("demo diff: %w", err)
	}
	for line := range strings.Lines(report.String()) {
		if line != "\n" {
			line = "   " + line
		}
		io.WriteString(w, line)
	}
	fmt.Fprintln(w)
	return nil
}

// demoCheck prints what `hubsnap snapshot check` shows a team's CI for
// the current release: its schema findings, and the exit status.
func demoCheck(ctx context.Context, w io.Writer, dir string, log *slog.Logger) error {
	fmt.Fprintf(w, "   hubsnap snapshot check: what a team's CI would flag in rel_42 (the schema, then the logics):\n\n")
	var report bytes.Buffer
	err := runCheck(ctx, &checkOptions{Stdout: &report, Log: log, CacheDir: dir, Project: "shop", Environment: "dev"})
	if _, found := errors.AsType[*failure](err); err != nil && !found {
		return fmt.Errorf("demo check: %w", err)
	}
	for line := range strings.Lines(report.String()) {
		io.WriteString(w, "   "+line)
	}
	if err != nil {
		fmt.Fprintf(w, "   hubsnap: %s (exit %d)\n", err, exitCode(err))
	}
	fmt.Fprintln(w)
	return nil
}

// demoEnv is the environment of the demo's serve: the caller's, without
// the hubsnap settings that could point it at anything but the demo.
func demoEnv(dir string) []string {
	settings := []string{envCacheDir, envHub, envProject, envEnvironment, envToken, envConfigDir}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(settings, name) {
			env = append(env, kv)
		}
	}
	return append(env, envConfigDir+"="+filepath.Join(filepath.Dir(dir), "config"))
}

// listCache prints the files of the cache folder.
func listCache(w io.Writer, dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fmt.Fprintf(w, "     %-32s %8d bytes\n", filepath.ToSlash(rel), info.Size())
		return nil
	})
}

// findInFiles returns the needles found in any file under dir.
func findInFiles(dir string, needles []string) []string {
	var found []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, n := range needles {
			if bytes.Contains(data, []byte(n)) {
				found = append(found, n+" in "+filepath.Base(path))
			}
		}
		return nil
	})
	return found
}
