package exitplanmode

// inputSchema is Claude Code's (2.1.332, as recorded in the tool definitions
// it sends the model; test/conformance/tooldefs_delegate.json), so that a
// model's calls validate as they do there.
const inputSchema = `{
  "type": "object",
  "properties": {
    "allowedPrompts": {
      "description": "Deprecated: no longer used.",
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "tool": {
            "description": "The tool this prompt applies to",
            "type": "string",
            "enum": [
              "Bash"
            ]
          },
          "prompt": {
            "description": "Semantic description of the action, e.g. \"run tests\", \"install dependencies\"",
            "type": "string"
          }
        },
        "required": [
          "tool",
          "prompt"
        ],
        "additionalProperties": false
      }
    }
  },
  "additionalProperties": {}
}`
