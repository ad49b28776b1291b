package grep

const description = `Searches file contents with regular expressions, built on ripgrep. Use it for every content search instead of running grep or rg through Bash: it stays inside the workspace, skips what should be skipped, and pages its output.

- pattern is a regular expression in ripgrep (Rust regex) syntax, close to RE2 and Go: log.*Error, func\s+\w+, interface\{\} (escape literal braces, parentheses, dots and the like). Look-around and backreferences are not supported. -i makes it case-insensitive.
- path is the file or directory to search, absolute or relative to the current working directory (default: the current working directory).
- Narrow the files with glob (rg --glob, e.g. "*.js", "**/*.tsx", "*.{ts,tsx}", "!**/testdata/**"; several globs can be separated by spaces or commas; a glob without a slash matches file names at any depth, one with a slash is relative to path) or with type (rg --type: go, js, ts, py, rust, java, c, cpp, md, json, yaml, sh, html, css, and the other ripgrep types). type is the quicker way to pick a language.
- output_mode: "files_with_matches" (the default) lists the files that match, most recently modified first; "content" shows the matching lines as path:line:text, files in path order, with context lines written path-line-text and "--" between groups that are not adjacent; "count" shows path:count (matching lines per file) and a total.
- -A, -B and -C (or context) add lines of context after, before, or around each match, and -n (default true) shows line numbers; these apply to content mode only.
- By default a match is confined to one line. With multiline: true, patterns can span lines and . also matches newlines, e.g. struct \{[\s\S]*?name or (?s)BEGIN.*?END.
- head_limit caps the entries returned (lines in content mode, files or counts otherwise); the default is 250 and 0 means no cap. offset skips that many entries first: use it to page through long results, as the truncation note tells you.
- Like ripgrep, the search includes hidden files but skips .git and other version-control directories, files ignored by .gitignore, .ignore or .rgignore files, binary files (a NUL byte in the first 64 KB) and symbolic links. A file named in path is searched even if it is ignored. Lines longer than 500 characters are cut short.

Use Glob to find files by name. For an open-ended search that may need several rounds of searching, run independent Grep and Glob calls in parallel in one response.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "pattern": {
      "type": "string",
      "description": "The regular expression to search for in file contents (ripgrep syntax)."
    },
    "path": {
      "type": "string",
      "description": "The file or directory to search in, absolute or relative to the current working directory. Defaults to the current working directory."
    },
    "glob": {
      "type": "string",
      "description": "Glob pattern(s) to filter files, as rg --glob: \"*.js\", \"**/*.tsx\", \"*.{ts,tsx}\", \"!vendor/**\". Separate several with spaces or commas."
    },
    "type": {
      "type": "string",
      "description": "File type to search, as rg --type: go, js, ts, py, rust, java, c, cpp, md, json, yaml, sh, ... More efficient than glob for standard file types."
    },
    "output_mode": {
      "type": "string",
      "enum": ["content", "files_with_matches", "count"],
      "description": "\"content\" shows matching lines, \"files_with_matches\" lists matching files (default), \"count\" shows match counts per file."
    },
    "-A": {
      "type": "integer",
      "minimum": 0,
      "description": "Number of lines to show after each match (rg -A). Content mode only."
    },
    "-B": {
      "type": "integer",
      "minimum": 0,
      "description": "Number of lines to show before each match (rg -B). Content mode only."
    },
    "-C": {
      "type": "integer",
      "minimum": 0,
      "description": "Number of lines to show before and after each match (rg -C). Content mode only."
    },
    "context": {
      "type": "integer",
      "minimum": 0,
      "description": "Same as -C."
    },
    "-n": {
      "type": "boolean",
      "description": "Show line numbers in the output (rg -n). Content mode only. Defaults to true."
    },
    "-i": {
      "type": "boolean",
      "description": "Case-insensitive search (rg -i)."
    },
    "multiline": {
      "type": "boolean",
      "description": "Let patterns span lines, with . matching newlines (rg -U --multiline-dotall). Default false."
    },
    "head_limit": {
      "type": "integer",
      "description": "Return only the first N entries: lines in content mode, files in files_with_matches mode, files in count mode. Defaults to 250; 0 means no limit."
    },
    "offset": {
      "type": "integer",
      "description": "Skip the first N entries before applying head_limit, to page through results. Defaults to 0."
    }
  },
  "required": ["pattern"],
  "additionalProperties": false
}`
