package bash

import "github.com/toold/toold/internal/shell"

// classification is what the Bash tool needs to know about a command
// before running it. The zero value is the safe answer. The analysis
// itself, with its read-only table and dual-use flag checks, is
// internal/shell's: there is one analysis for the tool and the policy.
type classification struct {
	// readOnly: the command may be declared read-only and run beside
	// other calls (shell.Analysis.ReadOnly). It only labels the call; it
	// is not a sandbox.
	readOnly           bool
	search, read, list bool
	// keepsDir: the command cannot change the shell's directory, so the
	// call needs no cwd capture (see keepsDir).
	keepsDir bool
	// analysis is the command's analysis, handed to the engine so that
	// the policy and the hooks judge the line without parsing it again.
	analysis *shell.Analysis
}

// classify analyses command once for everything the tool decides from it.
func classify(command string) classification {
	a := shell.Analyze(command)
	search, read, list := a.Kinds()
	return classification{
		readOnly: a.ReadOnly(),
		search:   search,
		read:     read,
		list:     list,
		keepsDir: keepsDir(a),
		analysis: a,
	}
}
