// Package claudecode names the Claude Code release whose tool semantics
// toold follows.
package claudecode

// Version is the Claude Code CLI release the conformance fixtures in
// test/conformance were recorded from. `make conformance-record` installs
// exactly this version, the conformance test checks the fixtures came
// from it, and GetServerInfo reports it, so a client knows which release's
// tool results and permission decisions to expect.
const Version = "2.1.332"
