//go:build race

package main

// raceEnabled is set when the tests run with the race detector, under
// which the stress tests of many real processes take minutes; .ci/run
// runs them without it.
const raceEnabled = true
