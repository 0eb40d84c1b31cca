// Package hub is the client of the Hub's release API (docs/design.md, "The
// Hub protocol"): it lists the releases of a project and downloads one
// snapshot to a temp file, hashing it as it comes.
//
// Every request goes through one retry loop (request in retry.go): at most
// Retries+1 sends, a capped exponential backoff with jitter between them,
// the Hub's Retry-After honoured up to MaxRetryAfter, each attempt logged.
//
// What does not live here: the name rules of projects, environments and
// release ids, the choice of a release from a listing (indexer.Pick), and
// anything about the cache or the index. Its errors are its own (Error,
// with a Kind), which the edges map; the package imports nothing of
// store's but store/atomicfile, for the temp file of a download.
package hub
