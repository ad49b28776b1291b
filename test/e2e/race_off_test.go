//go:build !race

package e2e

// raceEnabled: this test binary runs under the race detector.
const raceEnabled = false
