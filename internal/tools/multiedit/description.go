package multiedit

const description = `Makes several exact-string replacements in one file in a single step: all of them are applied, or none is.

Use it instead of several Edit calls when you change more than one place in the same file. Each entry of edits follows the rules of the Edit tool:
- old_string must match the file exactly, including indentation, whitespace and line breaks; no regular expressions or fuzzy matching. Copy it from the Read output without the line-number prefix (everything up to and including the tab after the number).
- old_string must occur exactly once, unless replace_all is true, which replaces every occurrence.
- new_string must differ from old_string.

The edits are applied in the order given, each to the result of the ones before it: plan them so that an earlier edit does not change or remove text a later one must find. If any edit fails (its old_string is missing or ambiguous), nothing is written and the file stays exactly as it was; the error names the edit that failed.

Before changing an existing file you must have read it with the Read tool in this session, and it must not have changed since. To create a new file, give a path that does not exist yet and make the first edit's old_string empty with the whole content as its new_string; the later edits then apply to that content. Only the first edit may have an empty old_string.

The file is written atomically, keeping its permissions. Files with CRLF line endings can be edited with plain newlines in old_string and new_string.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "minLength": 1,
      "description": "The absolute path of the file to edit."
    },
    "edits": {
      "type": "array",
      "minItems": 1,
      "description": "The replacements to make, applied in order, each to the result of the previous ones.",
      "items": {
        "type": "object",
        "properties": {
          "old_string": {
            "type": "string",
            "description": "The exact text to replace. Empty only in the first edit, to create a file that does not exist yet (or fill an empty one)."
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
        "required": ["old_string", "new_string"],
        "additionalProperties": false
      }
    }
  },
  "required": ["file_path", "edits"],
  "additionalProperties": false
}`
