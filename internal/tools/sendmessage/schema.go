package sendmessage

// inputSchema is Claude Code's (2.1.332, as recorded in the tool definitions
// it sends the model; test/conformance/tooldefs_delegate.json), so that a
// model's calls validate as they do there.
const inputSchema = `{
  "type": "object",
  "properties": {
    "to": {
      "description": "Recipient: a name from ListAgents (append its \" [ref]\" only when a listing or an error shows one), a teammate name, \"main\", or a background agent's agentId",
      "type": "string",
      "allOf": [
        {
          "pattern": "^[^\\n\\r]*$"
        },
        {
          "pattern": "^[\\s\\S]{0,300}$"
        }
      ]
    },
    "summary": {
      "description": "A 5-10 word label for your own transcript row (not transmitted — the recipient previews the first line of ` + "`" + `message` + "`" + `). Truncated to 200 characters rather than rejected.",
      "type": "string",
      "maxLength": 200
    },
    "message": {
      "default": "",
      "description": "Plain text message content. The recipient's human sees only the FIRST LINE as a one-line preview until they expand it, so make the first line a clear, self-contained sentence saying what this is about — not a greeting, preamble, or bare @-mention.",
      "type": "string"
    },
    "notify_when_idle": {
      "description": "Ask a session ON THIS MACHINE to send you ONE notice when it next goes idle (finishes its turn with nothing queued) or exits — opt-in, one-shot, no polling. With a message: deliver it now AND subscribe. Without a message (omit it): a pure subscription that costs the other session nothing.",
      "type": "boolean"
    }
  },
  "required": [
    "to",
    "message"
  ],
  "additionalProperties": false
}`
