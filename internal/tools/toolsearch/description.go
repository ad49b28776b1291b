package toolsearch

const description = `Fetches the full definitions of tools that are available but whose definitions are not loaded yet (deferred tools, listed by name only), so that you can call them.

Query forms:
- "select:Read,Edit,Grep": those tools by exact name, however many.
- A tool's exact name: that tool.
- "mcp__server": every tool of that MCP server (names starting with the prefix).
- Keywords, such as "notebook cell" or "slack send message": the best matches, up to max_results (default 5). A word in the tool's name counts most, then a word of its description, then its search hint. Write "+word" to require the word in the tool's name: "+slack send".

The result is a <functions> block with one <function> per tool, holding the tool's JSON definition (description, name, parameters). Once a tool's definition is in the result you can call it like any other tool.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "query": {
      "type": "string",
      "minLength": 1,
      "description": "Query to find tools: \"select:<name>,<name>\" for exact names, an mcp__<server> prefix, or keywords."
    },
    "max_results": {
      "type": "integer",
      "minimum": 1,
      "default": 5,
      "description": "Maximum number of tools to return for a keyword or prefix query (default 5)."
    }
  },
  "required": ["query"],
  "additionalProperties": false
}`
