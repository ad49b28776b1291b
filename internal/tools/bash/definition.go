package bash

import "encoding/json"

const description = `Runs a bash command and returns its output.

The command runs with "bash -c" in the session's current working directory, with standard input empty. A "cd" carries over to the next Bash call as long as the new directory is inside the session's workspace directories; if the command leaves them, the shell goes back to the primary workspace directory and the result says "Shell cwd was reset to <dir>". Nothing else carries over: every call starts a fresh shell, so variables, exports, aliases and functions set in one call are gone in the next.

Use this tool for work that needs a shell: builds, tests, linters, package managers, git, running programs and scripts. For files, prefer the dedicated tools: Read instead of cat, head or tail; Edit or Write instead of sed, awk or echo with a redirect; Glob to find files by name and Grep to search their contents instead of find, grep or rg. They are faster, need no quoting, and their results are easier to use.

Usage notes:
- Quote paths that contain spaces or special characters with double quotes: cd "my dir".
- Chain commands that depend on each other with "&&" in one call. Independent commands can be separate calls, which may run in parallel.
- Interactive programs cannot be used (there is no terminal and stdin is empty): pass flags that make them non-interactive (git commit -m, apt-get -y, npm init -y) and never open an editor or a pager (use git --no-pager, GIT_EDITOR=true).
- timeout is in milliseconds: 120000 (2 minutes) by default, at most 600000 (10 minutes). When it expires, the command and every process it started are killed and the output so far is returned.
- Processes started in the background ("cmd &") do not outlive the call: once the command has finished, whatever it left running is killed.
- The result is the standard output followed by the standard error. Output longer than 30000 characters is saved whole and the result shows its start in <persisted-output> with a handle: page through the rest with Read (file_path set to the handle, offset and limit in lines). Prefer filtering long output with grep, head or tail. A command whose output passes 64 MiB is killed.
- A non-zero exit status makes the result an error ending with "Exit code N"; a command killed by a signal says so.
- description is a short summary of what the command does, in 5-10 words, shown to the user: "Run the unit tests", "Install project dependencies", "Show changed files".`

var inputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {
      "type": "string",
      "description": "The bash command to run."
    },
    "timeout": {
      "type": "number",
      "description": "Optional time limit in milliseconds, more than 0 and at most 600000 (10 minutes). Default 120000 (2 minutes)."
    },
    "description": {
      "type": "string",
      "description": "A clear, concise description of what the command does, in 5-10 words, in active voice: \"List files in the current directory\"."
    }
  },
  "required": ["command"],
  "additionalProperties": false
}`)

// backgroundNote is the usage note added to the description when the
// server keeps background shells.
const backgroundNote = `
- run_in_background: true starts the command and returns at once with its shell ID, without waiting for it to end: use it for servers, watchers and long builds or test runs. The result names the command's output file (standard output and error together, with a last line saying how the command ended once it has): read it with the Read tool, as often as needed, and stop the command with the TaskStop tool. The timeout does not apply: the command runs until it ends, is stopped, or the session is closed, and when it ends whatever it left running is killed. Do not add "&" to the command for this.`

// runInBackgroundProperty is the schema of run_in_background, in the
// words Claude Code documents for it.
const runInBackgroundProperty = `{
  "type": "boolean",
  "description": "Set to true to run this command in the background. Read its output later from the output file the result names."
}`

var (
	backgroundDescription = description + backgroundNote
	backgroundInputSchema = withProperty(inputSchema, "run_in_background", runInBackgroundProperty)
)

// withProperty returns schema with one more property.
func withProperty(schema json.RawMessage, name, property string) json.RawMessage {
	var s struct {
		Type                 string                     `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties bool                       `json:"additionalProperties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		panic("bash: input schema: " + err.Error())
	}
	s.Properties[name] = json.RawMessage(property)
	out, err := json.Marshal(s)
	if err != nil {
		panic("bash: input schema: " + err.Error())
	}
	return out
}
