package taskoutput

const description = `Reads the output of a background shell: a command the Bash tool started with run_in_background.

- task_id is the shell ID the Bash call returned (bash_id is its older name and is accepted too).
- Each call returns only the output written since the previous call for that shell (standard output and standard error together, in the order they were written), with the shell's status: running, completed, failed or killed, and its exit code once it has ended.
- block (default true) waits for the command to finish, at most timeout milliseconds (default 30000, at most 600000); whatever was written meanwhile is returned either way, and a wait that ran out says so. With block false the call returns at once.
- filter is an optional regular expression (RE2 syntax, as in Go); only the lines that match are returned. Lines that do not match are consumed all the same: no later call returns them. With a filter, block returns as soon as a matching line arrives (or the command ends), which is how to wait for a server's "listening on ..." line.
- A call returns at most the newest 30000 bytes of what is new, with a note saying how much was left out: read more often, or use filter, to see everything.
- A shell keeps only the newest part of its output (16 MiB by default); when older output was dropped before it could be read, the result says how much.
- Stop a shell with the KillShell tool. Shells end with the session.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "task_id": {
      "type": "string",
      "description": "The ID of the background shell to read, as returned by the Bash call that started it."
    },
    "bash_id": {
      "type": "string",
      "description": "Deprecated: use task_id instead."
    },
    "filter": {
      "type": "string",
      "description": "Optional regular expression; only output lines that match are returned. Lines that do not match are no longer available to read."
    },
    "block": {
      "type": "boolean",
      "description": "Whether to wait for the command to finish (default true)."
    },
    "timeout": {
      "type": "number",
      "minimum": 0,
      "maximum": 600000,
      "description": "Max wait time in ms when block is true (default 30000, at most 600000)."
    }
  },
  "additionalProperties": false
}`
