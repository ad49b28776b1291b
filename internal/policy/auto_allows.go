package policy

import "strings"

// Auto mode drops the allow rules that would let arbitrary code run
// without the classifier seeing it, as Claude Code does on entering auto
// mode (https://code.claude.com/docs/en/permission-modes, auto: "broad
// allow rules are dropped (Bash(*), Bash(python*), package-manager run
// commands, Agent allows, Monitor allows)"). Such a call then asks, and in
// auto mode that means the classifier decides. Specific rules
// (Bash(npm test), Bash(git status *)) stay.

// interpreters run whatever code they are given.
var interpreters = []string{"python", "python3", "python2", "node", "deno", "bun", "ruby", "perl", "php", "bash", "sh", "zsh", "dash", "fish", "pwsh", "lua", "Rscript"}

// runners run a package's scripts or fetched packages.
var runners = []string{"npm run", "npm exec", "npx", "pnpm run", "pnpm exec", "pnpm dlx", "pnpx", "yarn run", "yarn exec", "yarn dlx", "bun run", "bunx", "uv run", "uvx", "poetry run", "pipx run", "cargo run", "go run"}

// broadInAuto reports whether auto mode drops allow rule r.
func broadInAuto(r *Rule) bool {
	switch r.Tool {
	case "Agent", "Task", "Monitor":
		return true
	case "Bash", "PowerShell":
	default:
		return false
	}
	spec := strings.TrimSpace(r.Spec)
	// Bash, Bash(*), Bash(:*)
	head := strings.TrimSuffix(strings.TrimSuffix(spec, "*"), ":")
	head = strings.TrimSpace(strings.TrimSuffix(head, " "))
	if head == "" {
		return true
	}
	wild := strings.ContainsAny(spec, "*")
	if !wild {
		return false
	}
	first, _, _ := strings.Cut(head, " ")
	first = strings.TrimRight(first, "*:")
	for _, name := range interpreters {
		// Bash(python*) also names python3; Bash(python3 *) any script.
		if first == name || (strings.HasPrefix(name, first) && first != "" && strings.HasSuffix(strings.Fields(spec)[0], "*")) {
			return true
		}
	}
	for _, run := range runners {
		if head == run || strings.HasPrefix(head, run+" ") && strings.Count(head, " ") <= strings.Count(run, " ") {
			return true
		}
	}
	return false
}

// withoutBroadAllows is rs without the allow rules auto mode drops.
func (rs *RuleSet) withoutBroadAllows() *RuleSet {
	out := &RuleSet{byBehavior: rs.byBehavior}
	var keep []*Rule
	for _, r := range rs.byBehavior[Allow] {
		if !broadInAuto(r) {
			keep = append(keep, r)
		}
	}
	out.byBehavior[Allow] = keep
	return out
}
