//go:build !race

package linguist

const raceEnabled = false

const raceSampleEvery = 1
