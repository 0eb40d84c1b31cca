package store

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
)

// The findings of `hubsnap snapshot check` and release_check (SPEC §12):
// the pages of the findings of the rules a request runs, composed by SQL
// (lint_segments.go). The rules and their registry are package
// indexer/lint's; store knows a rule by its code.
//
// Findings come from segments, one after another, in the order of
// lint.Rules: each stored rule's rows of schema_findings (written when the
// release is indexed: lint_write.go), then MISSING_COMMENT, read from
// tables and columns at call time, then the logic problems of the logic
// analysis (SPEC §11), whose codes are every other rule's. A page flows
// from one segment into the next.

// CheckRequest asks for the findings of a release.
type CheckRequest struct {
	// Release is the id of a cached release of the project; "" for the
	// current release.
	Release string
	// Codes are the rules to run: codes of indexer/lint's registry, which
	// the caller checks (lint.CheckRules) and chooses (lint.DefaultRules
	// when none is asked for). A code of no schema rule is taken for a
	// code of the logic problems.
	Codes []string
	PageRequest
}

// CheckPage is one page of findings: the JSON of mcpserver.CheckOutput.
type CheckPage struct {
	Release string // the release's id
	// Findings is the page's findings, a JSON array of
	// mcpserver.Finding.
	Findings []byte
	// Total counts the findings of every page.
	Total int64
	// CommentCoverage is the per cent of tables and columns together that
	// have a comment, when MISSING_COMMENT runs; else nil.
	CommentCoverage *float64
	// NextCursor fetches the next page; "" on the last.
	NextCursor string
	// AnalysisPending says the release's logics are still being analysed:
	// their problems are not among the findings yet.
	AnalysisPending bool
}

// JSON returns the page as the JSON of mcpserver.CheckOutput.
func (p *CheckPage) JSON() []byte {
	out := make([]byte, 0, len(p.Findings)+len(p.Release)+len(p.NextCursor)+96)
	out = append(out, `{"release":`...)
	out = strconv.AppendQuote(out, p.Release) // ids are [A-Za-z0-9._-]: Go's quoting is JSON's
	out = append(out, `,"findings":`...)
	out = append(out, p.Findings...)
	if p.CommentCoverage != nil {
		out = append(out, `,"commentCoverage":`...)
		out = strconv.AppendFloat(out, *p.CommentCoverage, 'f', -1, 64)
	}
	out = append(out, `,"total":`...)
	out = strconv.AppendInt(out, p.Total, 10)
	if p.AnalysisPending {
		out = append(out, `,"analysisPending":true`...)
	}
	if p.NextCursor != "" {
		out = append(out, `,"nextCursor":"`...)
		out = append(out, p.NextCursor...)
		out = append(out, '"')
	}
	return append(out, '}')
}

// CheckJSON answers release_check: a page of the findings of t's current
// release (or of the cached release req.Release), as the JSON of
// mcpserver.CheckOutput.
func (s *Store) CheckJSON(ctx context.Context, t Target, req CheckRequest) ([]byte, error) {
	var out []byte
	err := s.CheckAll(ctx, t, req, func(p *CheckPage) error {
		out = p.JSON()
		return errStopPages
	})
	return out, err
}

// errStopPages ends CheckAll after the page CheckJSON wants.
var errStopPages = Errorf(Internal, "stop")

// CheckAll gives fn each page of the findings, from req.Cursor to the
// end, in one read transaction (`hubsnap snapshot check`).
func (s *Store) CheckAll(ctx context.Context, t Target, req CheckRequest, fn func(*CheckPage) error) error {
	limit, err := req.limit()
	if err != nil {
		return err
	}
	codes := req.Codes
	if len(codes) == 0 {
		return Errorf(InvalidArgument, "no rule to run")
	}
	err = s.view(ctx, func(tx readTx) error {
		ri, rel, err := checkRelease(ctx, tx, t, req.Release)
		if err != nil {
			return err
		}
		c := &checker{tx: tx, rel: rel, ri: ri, selection: selectionKey(codes)}
		if err := c.count(ctx, codes); err != nil {
			return err
		}
		after, err := c.start(req.Cursor)
		if err != nil {
			return err
		}
		for {
			p, next, err := c.page(ctx, after, limit)
			if err != nil {
				return err
			}
			if err := fn(p); err != nil {
				return err
			}
			if next == nil {
				return nil
			}
			after = *next
		}
	})
	if errors.Is(err, errStopPages) {
		return nil
	}
	return err
}

// A segment lists the findings of some codes, in order, a page at a time.
type segment struct {
	codes []string // nil: the codes no other segment has
	// page reads the findings of codes after key (nil: from the first),
	// at most limit of them and no more than budget bytes (but one, when
	// first is set).
	page func(ctx context.Context, tx readTx, rel int64, codes []string, key []string, limit, budget int, first bool) (segmentPage, error)
	// count counts the findings of codes; rc is the release's
	// release_checks row.
	count func(ctx context.Context, tx readTx, rel int64, codes []string, rc releaseChecks) (int64, error)
}

// segmentPage is what a segment gives for a page.
type segmentPage struct {
	items []byte   // the findings, JSON objects joined by commas
	n     int      // how many
	bytes int      // their bytes, with a comma each
	more  bool     // more findings of the segment follow
	last  []string // the key of the last finding given
}

// segments are every segment, in the order of lint.Rules.
var segments = []segment{
	storedSegment(ruleNoPrimaryKey, snapshot.CodeNoPrimaryKey),
	storedSegment(ruleFKWithoutIndex, snapshot.CodeFKWithoutIndex),
	storedSegment(ruleFKTypeMismatch, snapshot.CodeFKTypeMismatch),
	storedSegment(ruleDuplicateForeignKey, snapshot.CodeDuplicateForeignKey),
	{codes: []string{snapshot.CodeMissingComment}, page: missingCommentPage, count: missingCommentCount},
	{page: logicProblemsPage, count: logicProblemsCount}, // analysis_check.go
}

// segmentCodes are the codes of every segment that names its own.
var segmentCodes = func() []string {
	var out []string
	for _, sg := range segments {
		out = append(out, sg.codes...)
	}
	return out
}()

// cursorKeys is how many parts a segment's key has at most.
const cursorKeys = 3

// checker reads the pages of one request in a read transaction.
type checker struct {
	tx        readTx
	rel       int64
	ri        ReleaseInfo
	selection string
	rc        releaseChecks
	codes     [][]string // per segment, the codes asked for of its own
	counts    []int64    // per segment, how many findings
	total     int64
	coverage  *float64
	pending   bool // analysis_check.go
}

// count reads how many findings each segment has for codes.
func (c *checker) count(ctx context.Context, codes []string) error {
	var err error
	if c.rc, err = readReleaseChecks(ctx, c.tx, c.rel); err != nil {
		return err
	}
	c.rc.tables = int64(c.ri.Tables)
	for _, sg := range segments {
		var mine []string
		for _, code := range codes {
			if sg.codes == nil && !slices.Contains(segmentCodes, code) || slices.Contains(sg.codes, code) {
				mine = append(mine, code)
			}
		}
		var n int64
		if len(mine) > 0 {
			if n, err = sg.count(ctx, c.tx, c.rel, mine, c.rc); err != nil {
				return err
			}
		}
		c.codes, c.counts, c.total = append(c.codes, mine), append(c.counts, n), c.total+n
	}
	if slices.Contains(codes, snapshot.CodeMissingComment) {
		v := c.rc.coverage()
		c.coverage = &v
	}
	c.pending, err = analysisPending(ctx, c.tx, c.rel)
	return err
}

// start reads a cursor: the segment to start at and the key in it.
func (c *checker) start(text string) (cursorAt, error) {
	if text == "" {
		return cursorAt{}, nil
	}
	parts, err := decodeCursor(text, "findings", c.ri, 2+cursorKeys)
	if err != nil {
		return cursorAt{}, err
	}
	sg, err := strconv.Atoi(parts[1])
	if err != nil || sg < 0 || sg >= len(segments) {
		return cursorAt{}, Errorf(InvalidArgument, "cursor is not valid: pass nextCursor exactly as a release_check answer gave it, or leave it out to start again")
	}
	if parts[0] != c.selection {
		return cursorAt{}, Errorf(InvalidArgument, "this cursor pages the findings of other rules: call with the same code, or without a cursor")
	}
	return cursorAt{segment: sg, key: parts[2:]}, nil
}

// cursorAt is where a page starts: a segment and the key of the last
// finding given in it (nil: its start).
type cursorAt struct {
	segment int
	key     []string
}

// page reads the page at after: its findings and where the next starts
// (nil on the last page).
func (c *checker) page(ctx context.Context, after cursorAt, limit int) (*CheckPage, *cursorAt, error) {
	budget := pageBudget(limit)
	items := []byte{'['}
	n, bytes := 0, 0
	var next *cursorAt
	for i := after.segment; i < len(segments); i++ {
		if c.counts[i] == 0 {
			continue
		}
		if n >= limit || bytes >= budget {
			next = &cursorAt{segment: i} // no room left: the next page starts it
			break
		}
		key := after.key
		if i != after.segment {
			key = nil
		}
		p, err := segments[i].page(ctx, c.tx, c.rel, c.codes[i], key, limit-n, budget-bytes, n == 0)
		if err != nil {
			return nil, nil, err
		}
		if p.n > 0 {
			if n > 0 {
				items = append(items, ',')
			}
			items = append(items, p.items...)
			n, bytes = n+p.n, bytes+p.bytes
		}
		if p.more {
			k := key
			if p.n > 0 {
				k = p.last
			}
			next = &cursorAt{segment: i, key: k}
			break
		}
	}
	page := &CheckPage{Release: c.ri.ID, Findings: append(items, ']'), Total: c.total, CommentCoverage: c.coverage,
		AnalysisPending: c.pending}
	if next != nil {
		key := make([]string, cursorKeys)
		copy(key, next.key)
		page.NextCursor = cursor{list: "findings", release: releaseTag(c.ri),
			key: append([]string{c.selection, strconv.Itoa(next.segment)}, key...)}.encode()
	}
	return page, next, nil
}

// selectionKey names a set of codes in a cursor, by a hash: a cursor
// pages the findings of the rules it was made for.
func selectionKey(codes []string) string {
	s := slices.Clone(codes)
	slices.Sort(s)
	sum := sha256.Sum256([]byte(strings.Join(slices.Compact(s), ",")))
	return base64.RawURLEncoding.EncodeToString(sum[:6])
}
