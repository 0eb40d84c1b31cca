package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hubsnap/hubsnap/indexer/snapshot"
	"github.com/hubsnap/hubsnap/store"
)

// BenchmarkCheck measures release_info (its schemaProblems is a row of
// release_checks) and pages of release_check on the 10,000- and
// 100,000-table releases: hubsnap's share of a call, handler and store.
// "deep" is the 50th page of MISSING_COMMENT, read from its cursor.
func BenchmarkCheck(b *testing.B) {
	for _, size := range []struct {
		name string
		st   func(testing.TB) *store.Store
	}{{"10k", largeStore}, {"100k", hugeStore}} {
		b.Run(size.name, func(b *testing.B) {
			srv := New(size.st(b), Options{Target: bigDev, Version: "test"})
			b.Cleanup(srv.Shutdown)
			ctx, req := context.Background(), &mcp.CallToolRequest{}
			b.Run("release_info", func(b *testing.B) {
				for b.Loop() {
					if _, err := srv.releaseInfo(ctx, req, ReleaseInfoInput{}); err != nil {
						b.Fatal(err)
					}
				}
			})
			deep := CheckInput{Code: snapshot.CodeMissingComment}
			for range 49 {
				answer, err := srv.check(ctx, req, deep)
				if err != nil {
					b.Fatal(err)
				}
				var page CheckOutput
				json.Unmarshal(answer, &page)
				deep.Cursor = Cursor(page.NextCursor)
			}
			for _, c := range []struct {
				name string
				in   CheckInput
			}{
				{"release_check", CheckInput{}},
				{"release_check/FK_TYPE_MISMATCH", CheckInput{Code: snapshot.CodeFKTypeMismatch}},
				{"release_check/MISSING_COMMENT", CheckInput{Code: snapshot.CodeMissingComment}},
				{"release_check/MISSING_COMMENT/deep", deep},
			} {
				b.Run(c.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := srv.check(ctx, req, c.in); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
