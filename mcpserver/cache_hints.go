package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Cache hints (SEP-2549, protocol 2026-07-28): how long a client may keep
// a result before asking again (ttlMs), and who may keep it (cacheScope).
//
//   - The lists (tools/list, resources/list, resources/templates/list) and
//     server/discover depend on the hubsnap binary only, not on the
//     release: listTTL, so that an upgraded server is seen within minutes.
//   - resources/read answers from the current release, which a sync can
//     replace at any time: readTTL, short.
//
// Sooner than that, a client that holds a subscriptions/listen stream is
// told when the release changes (CheckRelease): resources/list_changed,
// and resources/updated for the URIs it subscribed to; go-sdk's client
// drops its cached results on either. The protocol has no other way to
// take a hint back, so a client without such a stream (or on another
// replica than the one whose release changed) relies on the TTLs.
//
// Behind auth (any token), results are private: only the requesting
// user's client may keep them; without auth they are public.
const (
	listTTL = 5 * time.Minute
	readTTL = 30 * time.Second
)

// cacheHints is the server's ServerOptions.SetCacheable. It is called with
// the server's lock held: it must not call back into the server.
func cacheHints(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	switch req.GetParams().(type) {
	case *mcp.ListToolsParams, *mcp.ListResourcesParams, *mcp.ListResourceTemplatesParams, *mcp.DiscoverParams:
		c.TTLMs = int(listTTL / time.Millisecond)
	case *mcp.ReadResourceParams:
		c.TTLMs = int(readTTL / time.Millisecond)
	default:
		c.TTLMs = 0
	}
	c.CacheScope = "public"
	if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
		c.CacheScope = "private"
	}
}
