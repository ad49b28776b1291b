// Package conformance checks toold's tool results and permission decisions
// against the ones the pinned Claude Code release (internal/claudecode)
// gave for the same calls.
//
// cases*.json and host_cases*.json hold the calls, in the oracle's case format;
// expected*.json and expected_host*.json hold what Claude Code returned for
// them, recorded by `make conformance-record`; known_differences.json lists
// the calls toold still answers differently, each with a reason. The test in
// this package runs every case through a built toold and fails when a call
// differs that is not listed, or when a listed call now matches. See
// docs/conformance.md.
package conformance
