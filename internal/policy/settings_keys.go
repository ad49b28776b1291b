package policy

import (
	"encoding/json"
	"slices"
	"sort"
)

// usedSettingsKeys are the top-level settings.json keys toold reads:
// "permissions" here, the three hook keys in internal/hooks, "worktree"
// (its baseRef) in internal/tools/worktree. Every other
// key (env, model, sandbox, statusLine, enabledPlugins, ... and keys no
// Claude Code version knows) is ignored, as Claude Code ignores keys it
// does not know, so that a team's settings file is usable as it is;
// UnusedSettingsKeys names them so that toold can say so once at start.
var usedSettingsKeys = []string{"permissions", "hooks", "disableAllHooks", "allowManagedHooksOnly", "worktree"}

// UnusedSettingsKeys returns, sorted, the top-level keys of settings.json
// content that toold does not apply. "$schema" (editor metadata) is not
// listed. Content that is not a JSON object has none: parsing it fails
// elsewhere.
func UnusedSettingsKeys(data []byte) []string {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil
	}
	var out []string
	for k := range top {
		if k != "$schema" && !slices.Contains(usedSettingsKeys, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
