package read

const description = `Reads a file from the session's workspace and returns its contents.

file_path should be an absolute path; a relative path is taken from the session's current directory. Any file in the workspace or its additional directories can be read. It is fine to call Read on a path that may not exist: you will get an error saying so.

By default up to 2000 lines are returned, starting at the first line. For long files you can pass offset (the line number to start at; 1 and 0 both mean the first line) and limit (how many lines to return), but prefer reading the whole file when it is small enough. Lines longer than 2000 characters are cut and end with "... [line truncated]". One result holds at most about 90 KB of text. When lines are left out, a note at the end says how many lines the file has and which offset to continue from.

The result is numbered like ` + "`cat -n`" + `: each line starts with its line number right-aligned in 6 columns, then a tab, then the line's text. The number and the tab are not part of the file: never put them in Edit's old_string or new_string.

Images (PNG, JPEG, GIF and WebP, up to 5 MB) are returned as images you can look at. Other binary files are refused with an error. Directories cannot be read: use Glob to find files, or ls through Bash to list a directory. An empty file, or an offset past the last line, gives a short notice instead of content.

Reading a file is what allows Write and Edit to change it afterwards. When several files may be useful, read them in parallel with several Read calls in one response.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "minLength": 1,
      "description": "The absolute path of the file to read."
    },
    "offset": {
      "type": "integer",
      "minimum": 0,
      "description": "The line number to start reading from (1 is the first line; 0 also means the first line). Only give it when the file is too large to read at once."
    },
    "limit": {
      "type": "integer",
      "minimum": 1,
      "description": "The number of lines to read (default 2000). Only give it when the file is too large to read at once."
    }
  },
  "required": ["file_path"],
  "additionalProperties": false
}`
