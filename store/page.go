package store

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strconv"
)

// Paging of the lists (schema_list_tables, logic_list): a page is one
// indexed range read from the key after the cursor, never an OFFSET scan.

// Page limits.
const (
	DefaultPageLimit = 500
	MaxPageLimit     = 5000
	// MaxCursorBytes bounds a nextCursor passed back: longer than any
	// cursor hubsnap makes (its key holds names of at most 1 KiB each).
	MaxCursorBytes = 16 << 10
)

// AnswerBudget is how long an answer's text may be when the caller did
// not raise a limit: 64 KiB, about 16,000 tokens (docs/tools.md).
const AnswerBudget = 64 << 10

// pageBudget is how many bytes a page's items may take: what leaves room
// in AnswerBudget for the rest of the answer (a cursor names up to two
// 1 KiB names), and as many times more as the caller raised the limit.
func pageBudget(limit int) int {
	return (AnswerBudget - 8<<10) * max(1, limit/DefaultPageLimit)
}

// PageRequest asks for one page of a list.
type PageRequest struct {
	// Cursor is "" for the first page, else the NextCursor of the page
	// before.
	Cursor string
	// Limit is the most items in the page: DefaultPageLimit when 0, at
	// most MaxPageLimit.
	Limit int
}

// limit checks the request's limit and returns it.
func (p PageRequest) limit() (int, error) {
	switch {
	case p.Limit == 0:
		return DefaultPageLimit, nil
	case p.Limit < 1 || p.Limit > MaxPageLimit:
		return 0, Errorf(InvalidArgument, "limit must be between 1 and %d, got %d", MaxPageLimit, p.Limit)
	}
	return p.Limit, nil
}

// A cursor is opaque to clients: base64url of a JSON array of the list it
// pages, the release it came from, and the key of the last item given.
// The release is a hash of its project, id and digest, so a cursor of
// another release, or of the same release synced again with other
// contents, is refused rather than silently paging another list.
type cursor struct {
	list    string // "tables" or "logics"
	release string
	key     []string
}

// releaseTag identifies the contents of a release for cursors.
func releaseTag(ri ReleaseInfo) string {
	sum := sha256.Sum256([]byte(ri.Project + "\x00" + ri.ID + "\x00" + ri.Digest))
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}

func (c cursor) encode() string {
	b, _ := json.Marshal(append([]string{c.list, c.release}, c.key...))
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads the cursor of list for the release ri, whose key has
// n parts; an empty text is the start of the list.
func decodeCursor(text, list string, ri ReleaseInfo, n int) ([]string, error) {
	if text == "" {
		return make([]string, n), nil
	}
	bad := Errorf(InvalidArgument, "cursor is not valid: pass nextCursor exactly as a %s answer gave it, or leave it out to start again", list)
	if len(text) > MaxCursorBytes {
		return nil, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return nil, bad
	}
	var parts []string
	if err := json.Unmarshal(b, &parts); err != nil || len(parts) != 2+n || parts[0] != list {
		return nil, bad
	}
	if parts[1] != releaseTag(ri) {
		return nil, Errorf(InvalidArgument, "the release changed since this cursor was made (now %s, version %d): list again without a cursor",
			ri.ID, ri.Version)
	}
	return parts[2:], nil
}

// pageJSON completes a page's answer: items is the JSON array SQLite
// composed, field names it. The bytes are joined, never decoded.
func pageJSON(field string, items []byte, total int64, next string) []byte {
	out := make([]byte, 0, len(items)+len(field)+64+len(next))
	out = append(out, `{"`...)
	out = append(out, field...)
	out = append(out, `":`...)
	out = append(out, items...)
	out = append(out, `,"total":`...)
	out = strconv.AppendInt(out, total, 10)
	if next != "" {
		out = append(out, `,"nextCursor":"`...)
		out = append(out, next...) // base64url: nothing to escape
		out = append(out, '"')
	}
	return append(out, '}')
}
