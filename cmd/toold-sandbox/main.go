// Command toold-sandbox is the sandbox helper on its own: what `toold
// sandbox-exec` does, in a small binary. Where no cgroup can hold a
// command, every Bash command runs under a helper, and toold's own binary
// spends tens of milliseconds in package initialisation (PDF, HTML and
// schema libraries) before main runs; this one starts about as fast as an
// empty Go program, and a little memory is all an idle one costs. toold
// uses it when it lies beside toold's binary (or at --sandbox-helper), and
// runs itself as the helper otherwise.
package main

import (
	"os"

	"github.com/toold/toold/internal/sandbox"
)

func main() {
	args := os.Args[1:]
	// toold passes the subcommand's name first either way, so that both
	// binaries take the same argv.
	if len(args) > 0 && args[0] == sandbox.HelperCommand {
		args = args[1:]
	}
	os.Exit(sandbox.HelperMain(args))
}
