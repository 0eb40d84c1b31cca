//go:build !race

package diagram_test

const raceEnabled = false
