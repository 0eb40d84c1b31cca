// Package storetest generates synthetic releases for tests and benchmarks:
// large, deterministic and shaped like real schemas, so that nothing large
// has to be committed.
//
// # What is not here
//
// Fixtures of real releases (testdata/snapshots) and the writing of a
// release into an index (package store). No production code imports it.
package storetest
