//go:build race

package snapshot_test

// raceEnabled is set when the tests run with the race detector, under
// which the tests on 10,000-table releases take minutes each; .ci/run
// runs them without it.
const raceEnabled = true
