package listagents

// inputSchema is Claude Code's (2.1.332, as recorded in the tool definitions
// it sends the model; test/conformance/tooldefs_delegate.json), so that a
// model's calls validate as they do there.
const inputSchema = `{
  "type": "object",
  "properties": {
    "channel": {
      "description": "Not available in this build; leave unset.",
      "type": "string",
      "maxLength": 256
    },
    "q": {
      "description": "Not available in this build; leave unset.",
      "type": "string",
      "maxLength": 256
    },
    "cursor": {
      "description": "The cursor the last line of a long listing gave, for its next page. Omit to list from the start.",
      "type": "string",
      "maxLength": 256
    }
  },
  "additionalProperties": false
}`
