package bash

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/shell"
	"github.com/toold/toold/internal/tool"
)

// The shell's final directory comes back through a file: an EXIT trap,
// set before the command, writes `pwd -P` to a per-call file in the tool's
// private directory. pwd is a builtin and the redirect is done by bash
// itself, so no process is spawned for it. The path is in the script text,
// not in the environment. The command can still overwrite the trap (then
// the directory is not carried over, as after `exec`) or write the file
// (then what it wrote is checked like any other directory). Commands that
// cannot change the directory (keepsDir) get no trap and no file.

// dirChangers are the builtins that change the shell's directory or run
// code in the shell itself (where that code could cd): the main shell's
// directory cannot change without one of them, a function, or a command
// name that is only known when the command runs. builtin, command and exec
// are stripped as wrappers by the analysis, so they are looked for among
// a command's Wrappers too.
var dirChangers = map[string]bool{
	"cd": true, "pushd": true, "popd": true,
	"eval": true, "source": true, ".": true, "builtin": true, "command": true,
	"exec": true, "trap": true, "mapfile": true, "readarray": true, "fc": true,
	"enable": true, "alias": true, "shopt": true,
}

// keepsDir reports whether the command certainly leaves the shell in the
// directory it started in. The cwd capture is then skipped, which saves
// bash a file open and write, and the call a file create, read and
// remove; most commands (builds, tests, searches) are of this kind. A
// wrong "may change" only costs that time, so whatever the analysis
// cannot prove (functions, dynamic command names, substitutions, parse
// errors) counts as "may change", and so does a cd in a nested sh -c,
// which cannot change this shell's directory.
func keepsDir(a *shell.Analysis) bool {
	if !a.Proven() {
		return false
	}
	for _, list := range [][]shell.Command{a.Commands, a.Hidden} {
		for _, c := range list {
			if len(c.Argv) == 0 || dirChangers[c.Argv[0]] {
				return false
			}
			for _, w := range c.Wrappers {
				if dirChangers[w] {
					return false
				}
			}
		}
	}
	return true
}

// shellInitIn reports whether the environment makes bash run code before
// the command (BASH_ENV, exported functions), code that keepsDir cannot
// see.
func shellInitIn(environ []string) bool {
	for _, kv := range environ {
		if strings.HasPrefix(kv, "BASH_ENV=") || strings.HasPrefix(kv, "ENV=") || strings.HasPrefix(kv, "BASH_FUNC_") {
			return true
		}
	}
	return false
}

// cwdScript returns the text put before the command. It goes on the same
// line as the command, so bash's line numbers in error messages match the
// model's command; the one place it shows, bash's echo of a line-1 syntax
// error, is cut from stderr (see stream.hide). The trap turns off xtrace
// quietly, so that `set -x` in the command does not trace it.
func cwdScript(file string) string {
	action := "{ set +x; builtin pwd -P >| " + shellQuote(file) + "; } 2>/dev/null"
	return "trap -- " + shellQuote(action) + " EXIT; "
}

// shellQuote single-quotes s for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// readCwdFile returns the directory the trap wrote, or "" when it wrote
// nothing usable.
func readCwdFile(f *os.File) string {
	var buf [4097]byte // PATH_MAX plus the newline
	n, _ := f.ReadAt(buf[:], 0)
	if n == 0 || n == len(buf) {
		return ""
	}
	dir := strings.TrimSuffix(string(buf[:n]), "\n")
	if !filepath.IsAbs(dir) || strings.ContainsRune(dir, 0) {
		return ""
	}
	// bash prints //tmp for /proc/self/root/tmp.
	return filepath.Clean(dir)
}

// carryCwd makes dir the session's directory when it is a real directory
// inside the workspace. It returns the session's directory after the call
// and a note for the model when the shell was put back.
func carryCwd(ctx context.Context, env *tool.Env, cwd, dir string) (string, string) {
	if dir == "" || dir == cwd {
		return cwd, ""
	}
	// pwd -P prints a path free of symlinks; anything else was not written
	// by the trap, or the directory changed since.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil || real != dir {
		return cwd, ""
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return cwd, ""
	}
	ctx = context.WithoutCancel(ctx)
	if !env.Files.Contains(dir) {
		primary := env.Files.Primary()
		note := "Shell cwd was reset to " + primary
		if primary != cwd {
			if err := env.State.SetCwd(ctx, primary); err != nil {
				return cwd, note + " (saving it failed: " + err.Error() + ")"
			}
		}
		return primary, note
	}
	if err := env.State.SetCwd(ctx, dir); err != nil {
		return cwd, "The shell's new working directory could not be saved (" + err.Error() + "); the next command starts in " + cwd
	}
	return dir, ""
}
