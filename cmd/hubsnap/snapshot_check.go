package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hubsnap/hubsnap/indexer"
	"github.com/hubsnap/hubsnap/indexer/lint"
	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/mcpserver"
	"github.com/hubsnap/hubsnap/store"
)

// checkOptions is what `hubsnap snapshot check` works with.
type checkOptions struct {
	Stdout               io.Writer
	Log                  *slog.Logger
	CacheDir             string
	Project, Environment string
	Release              string   // a cached release id; "" for the current release
	JSON                 bool     // --json
	Rules                []string // --rule: run these rules only
	Ignore               []string // --ignore: not these
	All                  bool     // --all: every rule, MISSING_COMMENT included
}

func (a *app) newCheckCommand() *cobra.Command {
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [ID]",
		Short: "Lint a cached release's schema; exit 1 on findings, for CI",
		Long: `Judges the schema of the current release (or the cached release ID) by the rules
of release_check and prints one line per finding: table[.column]: CODE message,
a table of another connection than main written connection.table. Exits 1 when
there is any finding, 0 when there is none: a check for a team's CI. Offline.

Rules: ` + strings.Join(lint.RuleCodes(), ", ") + `.
By default every rule runs but MISSING_COMMENT (a table or column without a
comment); --all runs it too, and --json then adds commentCoverage. The codes of
logic problems are rules as well; their findings come from the logic analysis.`,
		Args: args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			var err error
			if opts.CacheDir, opts.Project, opts.Environment, err = a.resolveTarget(cmd); err != nil {
				return err
			}
			if len(argv) > 0 {
				opts.Release = argv[0]
			}
			opts.Stdout, opts.Log = a.stdout, a.log
			return runCheck(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print the findings as JSON (release_check's answer, whole)")
	f.StringSliceVar(&opts.Rules, "rule", nil, "run only this rule (repeatable, or comma-separated)")
	f.StringSliceVar(&opts.Ignore, "ignore", nil, "do not run this rule (repeatable, or comma-separated)")
	f.BoolVar(&opts.All, "all", false, "run every rule, MISSING_COMMENT included")
	return cmd
}

// selectRules returns the rules a check runs: --rule's, or every rule
// with --all, or the default ones; less --ignore's. An unknown code, or
// nothing left to run, is a usage error.
func selectRules(rules, ignore []string, all bool) ([]string, error) {
	for _, list := range [][]string{rules, ignore} {
		if err := lint.CheckRules(list); err != nil {
			return nil, usageErrorf("%v", err)
		}
	}
	var codes []string
	switch {
	case all && len(rules) > 0:
		return nil, usageErrorf("--all and --rule exclude each other: --all runs every rule")
	case all:
		codes = lint.RuleCodes()
	case len(rules) > 0:
		codes = rules
	default:
		codes = lint.DefaultRules()
	}
	codes = slices.DeleteFunc(slices.Clone(codes), func(c string) bool { return slices.Contains(ignore, c) })
	if len(codes) == 0 {
		return nil, usageErrorf("--ignore leaves no rule to run")
	}
	return codes, nil
}

// runCheck prints the findings and fails (exit 1) when there are any. It
// never creates a cache.
func runCheck(ctx context.Context, opts *checkOptions) error {
	codes, err := selectRules(opts.Rules, opts.Ignore, opts.All)
	if err != nil {
		return err
	}
	if opts.Release != "" {
		if err := indexer.CheckName("release id", opts.Release); err != nil {
			return err
		}
	}
	c, err := openReleases(ctx, opts.CacheDir, opts.Project, opts.Environment, opts.Log)
	if err != nil {
		return err
	}
	defer c.Close()
	w := bufio.NewWriterSize(opts.Stdout, 64<<10)
	var out checkWriter = &checkText{w: w, counts: map[string]int{}}
	if opts.JSON {
		out = &checkJSON{w: w}
	}
	var last *store.CheckPage
	err = c.Store().CheckAll(ctx, store.Target{Project: opts.Project, Environment: opts.Environment},
		store.CheckRequest{Release: opts.Release, Codes: codes, PageRequest: store.PageRequest{Limit: store.MaxPageLimit}},
		func(p *store.CheckPage) error {
			last = p
			return out.page(p)
		})
	if err != nil {
		return err
	}
	if err := out.end(last); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if last.AnalysisPending {
		opts.Log.Warn("the logics of this release are still being analysed: their problems are not checked yet",
			"release", last.Release)
	}
	if last.Total > 0 {
		return &failure{fmt.Errorf("%s", findingsSummary(last, out.byCode()))}
	}
	return nil
}

// findingsSummary is the line a check with findings ends with (on stderr):
// how many, of which rules, in which release.
func findingsSummary(p *store.CheckPage, counts map[string]int) string {
	var parts []string
	for _, code := range lint.RuleCodes() {
		if n := counts[code]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", code, n))
		}
	}
	noun := "findings"
	if p.Total == 1 {
		noun = "finding"
	}
	msg := fmt.Sprintf("%d %s in release %s", p.Total, noun, p.Release)
	if len(parts) > 0 {
		msg += " (" + strings.Join(parts, ", ") + ")"
	}
	if p.CommentCoverage != nil {
		msg += fmt.Sprintf("; %s%% of tables and columns have a comment", strconv.FormatFloat(*p.CommentCoverage, 'f', -1, 64))
	}
	return msg
}

// A checkWriter prints the pages of findings.
type checkWriter interface {
	page(*store.CheckPage) error
	end(last *store.CheckPage) error
	byCode() map[string]int // the findings printed, by code
}

// checkText prints one line per finding.
type checkText struct {
	w      *bufio.Writer
	counts map[string]int
}

func (t *checkText) page(p *store.CheckPage) error {
	var fs []mcpserver.Finding
	if err := json.Unmarshal(p.Findings, &fs); err != nil {
		return fmt.Errorf("read the findings: %w", err)
	}
	for _, f := range fs {
		t.counts[f.Code]++
		t.w.WriteString(findingLine(f))
		t.w.WriteByte('\n')
	}
	return nil
}

func (t *checkText) end(*store.CheckPage) error { return nil }
func (t *checkText) byCode() map[string]int     { return t.counts }

// findingLine writes a finding for a person: "table[.column]: CODE
// message", the table as connection.table when its connection is not
// main; a logic's problem as "logic[:position]: CODE message".
func findingLine(f mcpserver.Finding) string {
	where := f.Logic
	switch {
	case f.Logic != "":
		if f.Position > 0 {
			where += ":" + strconv.Itoa(f.Position)
		}
	default:
		where = f.Table
		if f.Connection != "" && f.Connection != snapshot.DefaultConnection {
			where = f.Connection + "." + where
		}
		if f.Column != "" {
			where += "." + f.Column
		}
	}
	return where + ": " + f.Code + " " + f.Message
}

// checkJSON prints the findings as one document, mcpserver.CheckOutput
// whole, indented as `snapshot diff --json` is: it streams each page's
// findings, so that millions of them never sit in memory.
type checkJSON struct {
	w      *bufio.Writer
	n      int
	counts map[string]int
}

func (j *checkJSON) page(p *store.CheckPage) error {
	if j.counts == nil {
		j.counts = map[string]int{}
		fmt.Fprintf(j.w, "{\n  \"release\": %q,\n  \"findings\": [", p.Release)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(p.Findings, &items); err != nil {
		return fmt.Errorf("read the findings: %w", err)
	}
	var buf bytes.Buffer
	for _, item := range items {
		var f struct{ Code string }
		json.Unmarshal(item, &f)
		j.counts[f.Code]++
		buf.Reset()
		if err := json.Indent(&buf, item, "    ", "  "); err != nil {
			return fmt.Errorf("read the findings: %w", err)
		}
		if j.n > 0 {
			j.w.WriteByte(',')
		}
		j.w.WriteString("\n    ")
		j.w.Write(buf.Bytes())
		j.n++
	}
	return nil
}

func (j *checkJSON) end(p *store.CheckPage) error {
	if j.n > 0 {
		j.w.WriteString("\n  ")
	}
	j.w.WriteString("],\n")
	if p.CommentCoverage != nil {
		fmt.Fprintf(j.w, "  \"commentCoverage\": %s,\n", strconv.FormatFloat(*p.CommentCoverage, 'f', -1, 64))
	}
	if p.AnalysisPending {
		fmt.Fprintf(j.w, "  \"total\": %d,\n  \"analysisPending\": true\n}\n", p.Total)
		return nil
	}
	fmt.Fprintf(j.w, "  \"total\": %d\n}\n", p.Total)
	return nil
}

func (j *checkJSON) byCode() map[string]int { return j.counts }
