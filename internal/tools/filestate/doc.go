// Package filestate holds what Read, Write and Edit share: how a path given
// by the model is placed in the workspace and keyed, the read-before-write
// rule (what the model has seen of a file: Check, Seen; Claude Code's rule
// or the stricter Policy), Edit's exact-string replacement, and the
// `cat -n` view of lines Read prints. docs/write-and-edit.md has the rule.
//
// A change of a file is a compare-and-swap (commit.go): under the file's
// lock (workspace.Loc.Lock, which holds across sessions and replicas), the
// content is checked against the stamp's hash of what the model read and
// then replaced, so of two writers from one read exactly one wins. Files
// with more than one hard link are neither read nor changed
// (workspace.HardLinkError). docs/hard-links.md has the whole story.
//
// The key of a file in the session's read stamps is the Abs of its fully
// resolved Loc (workspace.Loc.Resolve): one path per file whatever spelling
// or symlink the model went through, so a Read of link.txt lets an Edit of
// its target proceed, and vice versa.
package filestate
