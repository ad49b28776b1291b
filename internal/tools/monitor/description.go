package monitor

const description = `Runs a command in the background and watches its standard output: each line it prints is an event. The call returns at once; the events come to you later as notifications, lines that arrive close together (within 200 ms) in one notification, and one more when the command ends or the monitor expires. Don't wait or poll for them: carry on, and act on each as it comes.

Choose by what you wait for:
- One condition ("tell me when the server is ready"): a command that prints one line and exits when the condition holds, e.g. until grep -q "Ready in" dev.log; do sleep 0.5; done; echo ready.
- Every occurrence of something ("each ERROR line"): an unbounded command such as tail -f app.log | grep --line-buffered ERROR. Each occurrence is a notification until the monitor expires; every line is also in its output file (read it with Read).

Writing the command:
- Every stage of a pipe must flush each line, or the lines wait unseen in its buffer: grep needs --line-buffered, awk fflush(); head cannot flush at all.
- Only standard output makes events. Standard error goes to the output file only: merge it with 2>&1 when its failures should reach you.
- Match every outcome you care about, failures included (Traceback|Error|FAILED as well as the success line): a filter that only knows success stays silent through a crash, and silence looks like "still running".
- Keep it selective: a command that prints many lines a second gets its notifications suppressed, and one that keeps that up for 30 s is stopped.
- In a polling loop, tolerate a failed check (curl ... || true) and poll local things every 0.5-1 s, remote APIs every 30 s or more.

The command runs like a Bash command (the same directory, environment, permission rules and sandbox). timeout_ms is how long the monitor may run (default 300000, at most 600000; more is cut to 600000): it is then stopped, with one last notice. Stop a monitor early with TaskStop. description names what is watched, in every notification.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "description": {
      "type": "string",
      "description": "A short description of what is watched (shown with its events)"
    },
    "timeout_ms": {
      "type": "number",
      "minimum": 1000,
      "maximum": 3600000,
      "default": 300000,
      "description": "Stop the monitor after this many milliseconds (default 300000; more than 600000 is cut to 600000)"
    },
    "command": {
      "type": "string",
      "description": "The shell command whose standard output lines are the events; its exit ends the watch"
    }
  },
  "required": ["description", "timeout_ms"],
  "additionalProperties": false
}`
