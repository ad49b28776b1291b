package worktree

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// maxNameLen is Claude Code's limit on a worktree name.
const maxNameLen = 64

// checkName applies Claude Code's rules to a worktree name: "/"-separated
// segments of letters, digits, dots, underscores and dashes, none of them
// "." or "..", at most 64 characters in all. A name that passes cannot
// leave .claude/worktrees/: "/" is flattened to "+" (dirName) before the
// name becomes a path.
func checkName(name string) error {
	if len(name) > maxNameLen {
		return nameError(fmt.Sprintf("Invalid worktree name: must be %d characters or fewer (got %d)", maxNameLen, len(name)))
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "." || seg == ".." {
			return nameError(fmt.Sprintf("Invalid worktree name %q: must not contain \".\" or \"..\" path segments", name))
		}
		if seg == "" {
			return nameError(fmt.Sprintf("Invalid worktree name %q: each \"/\"-separated segment must be non-empty and contain only letters, digits, dots, underscores, and dashes", name))
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
				return nameError(fmt.Sprintf("Invalid worktree name %q: each \"/\"-separated segment must be non-empty and contain only letters, digits, dots, underscores, and dashes", name))
			}
		}
	}
	return nil
}

// nameError is the refusal of a bad name, worded as Claude Code's schema
// refinement words it (one zod issue of code "custom" on the name field).
func nameError(msg string) error {
	m, _ := json.Marshal(msg)
	return tool.InvalidInputf("InputValidationError: [\n  {\n    \"code\": \"custom\",\n    \"message\": %s,\n    \"path\": [\n      \"name\"\n    ]\n  }\n]", m)
}

// dirName is the directory and branch suffix of a name: Claude Code
// flattens "/" to "+", so "a/b" lives in .claude/worktrees/a+b on branch
// worktree-a+b.
func dirName(name string) string { return strings.ReplaceAll(name, "/", "+") }

// BranchName is the branch a worktree of that name is made on.
func BranchName(name string) string { return "worktree-" + dirName(name) }

// Word lists for generated names, which read like Claude Code's
// ("frolicking-prancing-twilight"): two adjectives and a noun.
var (
	adjectives = []string{"agile", "amber", "bold", "brisk", "calm", "clever", "cosmic", "curious", "dapper", "eager",
		"fuzzy", "gentle", "glowing", "humble", "jolly", "keen", "lively", "lucky", "mellow", "merry",
		"nimble", "plucky", "quiet", "rapid", "shiny", "snappy", "steady", "sunny", "swift", "tidy",
		"vivid", "witty", "zesty", "frolicking", "prancing", "wandering"}
	nouns = []string{"aurora", "badger", "breeze", "canyon", "comet", "falcon", "forest", "glacier", "harbor", "island",
		"lagoon", "meadow", "nebula", "otter", "pebble", "prairie", "quartz", "river", "summit", "thunder",
		"tulip", "twilight", "valley", "willow", "zephyr"}
)

// randomName is a fresh name for a worktree the model did not name.
func randomName() string {
	pick := func(l []string) string {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(l))))
		if err != nil {
			return l[0]
		}
		return l[n.Int64()]
	}
	return pick(adjectives) + "-" + pick(adjectives) + "-" + pick(nouns)
}
