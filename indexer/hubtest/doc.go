// Package hubtest is a small, real Hub server (the release API) that runs in
// process on a loopback port. Tests use it to drive the Hub client over real
// HTTP, with hooks to inject failures; the demo uses it as its Hub.
//
// # What is not here
//
// The Hub client (package indexer/hub) and the sync (package indexer):
// hubtest only answers as a Hub does. It imports nothing of this module.
package hubtest
