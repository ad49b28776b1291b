// Package filestate holds what Read, Write and Edit share: how a path given
// by the model is placed in the workspace and keyed, the read-before-write
// rule that keeps the model from overwriting a file it has not seen (or that
// changed since), and the `cat -n` view of lines both Read and Edit print.
//
// The key of a file in the session's read stamps is the Abs of its fully
// resolved Loc (workspace.Loc.Resolve): one path per file whatever spelling
// or symlink the model went through, so a Read of link.txt lets an Edit of
// its target proceed, and vice versa.
package filestate
