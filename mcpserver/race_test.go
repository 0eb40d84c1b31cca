//go:build race

package mcpserver

// raceEnabled is set when the tests run with the race detector, under
// which the tests on 100,000-table releases would take most of an hour;
// .ci/run runs them without it.
const raceEnabled = true
