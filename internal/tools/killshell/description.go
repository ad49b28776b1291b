package killshell

const description = `Stops a background task of this session: a command the Bash tool runs in the background (run_in_background, or moved there at its timeout) or a Monitor.

- task_id is the task's ID, as the Bash or Monitor call gave it (shell_id is its older name and is accepted too).
- The command and every process it started are killed at once (its whole process group); the call returns once it has ended.
- What the task wrote before it was stopped stays readable in its output file.
- A task that has already ended, or an ID this session does not have, is answered "No task found with ID: …".
- Use it to end a task that is no longer needed; background tasks also end when the session ends.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "task_id": {
      "type": "string",
      "description": "The ID of the background task to stop"
    },
    "shell_id": {
      "type": "string",
      "description": "Deprecated: use task_id instead"
    }
  },
  "additionalProperties": false
}`
