package killshell

const description = `Stops a background shell: a command the Bash tool started with run_in_background.

- shell_id is the shell ID the Bash call returned (task_id is accepted too).
- The command and every process it started are killed at once (the shell's whole process group, with SIGKILL); the call returns once the command has ended.
- The shell stays listed as killed, and what it wrote before it was stopped can still be read with the TaskOutput tool.
- Stopping a shell that has already ended is an error that gives its status and exit code.
- Background shells also end when the session ends.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "shell_id": {
      "type": "string",
      "description": "The ID of the background shell to stop."
    },
    "task_id": {
      "type": "string",
      "description": "The ID of the background task to stop (the same ID as shell_id)."
    }
  },
  "additionalProperties": false
}`
