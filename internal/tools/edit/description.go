package edit

// readRule is the description's sentence on the read-before-write rule,
// by policy.
var readRule = map[bool]string{
	false: "Read a file with the Read tool before editing it. If it changed on disk since you read it and old_string is no longer found exactly once, the call fails and asks you to read it again.",
	true:  "Before editing a file you must have read it with the Read tool in this session, and it must not have changed since: otherwise the call fails and asks you to read it (again).",
}

const description = `Changes a file by replacing an exact piece of its text with another.

%s Edit is for existing files; with an empty old_string it can also create a file that does not exist yet (or fill an empty one), with new_string as its content.

old_string must match the file exactly, including indentation, whitespace and line breaks; no regular expressions or fuzzy matching. Copy it from the Read output without the line-number prefix: everything before and including the tab that follows the number belongs to the display, not to the file. A line shown ending in "... [line truncated]" was cut for display: do not copy the marker.

The edit fails if old_string is not found, or if it occurs more than once and replace_all is not set. Either include enough surrounding lines to make old_string unique, or set replace_all to true to change every occurrence (handy for renaming a variable throughout a file). Straight quotes in old_string also match curly ones in the file (and new_string then gets the file's curly quotes). Files with CRLF line endings are edited with plain newlines in old_string and new_string. Trailing white space of new_string's lines is dropped, except in Markdown files.

The change is written atomically. Prefer Edit over Write for changing existing files: it sends only the change.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "minLength": 1,
      "description": "The absolute path of the file to edit."
    },
    "old_string": {
      "type": "string",
      "description": "The exact text to replace. Empty only to create a file that does not exist yet (or fill an empty one)."
    },
    "new_string": {
      "type": "string",
      "description": "The text to put in its place; it must differ from old_string."
    },
    "replace_all": {
      "type": "boolean",
      "default": false,
      "description": "Replace every occurrence of old_string instead of requiring exactly one (default false)."
    }
  },
  "required": ["file_path", "old_string", "new_string"],
  "additionalProperties": false
}`
