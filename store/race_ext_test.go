//go:build race

package store_test

// raceOn is set when the tests run with the race detector, under which the
// tests on 10,000-table releases take minutes each; .ci/run runs them once
// more without it.
const raceOn = true
