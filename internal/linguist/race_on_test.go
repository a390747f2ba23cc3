//go:build race

package linguist

const raceEnabled = true

// raceSampleEvery: under the race detector the GOROOT walk keeps one file in
// this many (both sides run ~10x slower there).
const raceSampleEvery = 8
