package write

// readRule is the description's sentence on the read-before-write rule,
// by policy.
var readRule = map[bool]string{
	false: "Read an existing file with the Read tool before replacing it. If it changed on disk since you read it, the call fails and asks you to read it again.",
	true:  "To replace an existing file you must have read it with the Read tool in this session, and it must not have changed since: otherwise the call fails and asks you to read it (again).",
}

const description = `Writes a file in the session's workspace, creating it or replacing its whole content.

file_path should be an absolute path; a relative path is taken from the session's current directory. Missing parent directories are created. The file is replaced in one atomic step, so nobody ever sees it half written; an existing file keeps its permissions, a new one is created readable by all and writable by its owner (0644). Through a symlink, the file it points to is written.

%s A new file needs no read.

Prefer the Edit tool to change part of an existing file: it sends only the change. Use Write for new files or complete rewrites. Do not create documentation or README files unless asked to.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "file_path": {
      "type": "string",
      "minLength": 1,
      "description": "The absolute path of the file to write. An existing file is replaced."
    },
    "content": {
      "type": "string",
      "description": "The complete content to write to the file."
    }
  },
  "required": ["file_path", "content"],
  "additionalProperties": false
}`
