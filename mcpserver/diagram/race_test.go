//go:build race

package diagram_test

// raceEnabled is set under the race detector, which makes building a
// 10,000-table index too slow; .ci/run runs those tests without it.
const raceEnabled = true
