//go:build race

package analyze

// raceEnabled: the race detector slows the corpus comparisons tenfold, so
// they sample.
const raceEnabled = true
