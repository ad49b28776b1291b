// Package grep implements the Grep tool: a ripgrep search of the session's
// workspace, through the rg binary when there is one and through a
// built-in Go engine with the same rules and output otherwise. A parity
// test runs both over one corpus and compares their texts.
//
// What is searched, in both engines (ripgrep's defaults plus Claude
// Code's flags):
//   - hidden files are searched (--hidden); .git, .hg, .svn, .jj and .bzr
//     are not, whatever the glob argument says;
//   - .gitignore, .ignore, .rgignore and .git/info/exclude are obeyed with
//     ripgrep's precedence, in the search tree and in its parent
//     directories, with or without a .git directory (--no-require-git);
//     global git excludes are not read (--no-ignore-global);
//   - the glob argument works as rg --glob: it overrides ignore files, a
//     glob selects and "!glob" excludes; type works as rg --type;
//   - symbolic links are neither followed nor searched (--no-follow);
//   - files with more than one hard link are left out (another of their
//     names may be outside the workspace): the built-in engine refuses
//     them on the open descriptor, ripgrep's hits are filtered after it
//     ran (docs/hard-links.md);
//   - a file with a NUL byte in its first 64 KiB is binary and skipped; a
//     later NUL stops the search at the end of the last buffer ripgrep
//     had filled before it, and drops the file from counts, as ripgrep
//     does. A file named as the search path is searched even when
//     ignored, and refused with a note when it holds a NUL;
//   - UTF-8 byte order marks are dropped and UTF-16 files with one are
//     transcoded;
//   - paths a Read deny rule hides (tool.Env.Hidden) are left out of every
//     output mode and of the counts; a hidden search path finds nothing.
//     The built-in engine neither enters nor reads them; ripgrep's hits
//     are filtered after it ran.
//
// What comes back: absolute paths under the path the model gave. Files of
// files_with_matches are ordered newest first (as Claude Code does), ties
// by path; content and count are ordered by path, lines in file order.
// head_limit (default 250, 0 for none) and offset apply to those entries,
// and a result stays under 90 KB with a note giving the offset to go on
// from. Lines are cut after 500 characters.
//
// Known differences between the engines, outside the parity corpus: Go's
// regexp is RE2 (no look-around, like ripgrep's default engine), \d \w \s
// are made Unicode-aware as in Rust but \b stays ASCII; rg also reads
// ignore files above the workspace directory (the Go engine never leaves
// the workspace) and follows an ignore file that is a symbolic link out of
// it; rg's output of a file whose name holds a newline is misread in
// content and count modes. The rg binary is started on a path that was
// checked through the workspace just before: a concurrent swap of a
// directory for a symbolic link could still redirect it, which the Go
// engine, opening every component relative to the last, cannot suffer.
package grep
