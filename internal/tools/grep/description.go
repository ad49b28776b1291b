package grep

const description = `Searches file contents with regular expressions, built on ripgrep. Use it for every content search instead of running grep or rg through Bash: it stays inside the workspace, skips what should be skipped, and pages its output.

- pattern is a regular expression in ripgrep (Rust regex) syntax, close to RE2 and Go: log.*Error, func\s+\w+, interface\{\} (escape literal braces, parentheses, dots and the like). Look-around and backreferences are not supported. -i makes it case-insensitive.
- path is the file or directory to search, absolute or relative to the current working directory (default: the current working directory).
- Narrow the files with glob (rg --glob, e.g. "*.js", "**/*.tsx", "*.{ts,tsx}", "!**/testdata/**"; several globs can be separated by spaces or commas; a glob without a slash matches file names at any depth, one with a slash is relative to path) or with type (rg --type: go, js, ts, py, rust, java, c, cpp, md, json, yaml, sh, html, css, and the other ripgrep types). type is the quicker way to pick a language.
- output_mode: "files_with_matches" (the default) lists the files that match, most recently modified first; "content" shows the matching lines as path:line:text, files in path order, with context lines written path-line-text and "--" between groups that are not adjacent; "count" shows path:count (matching lines per file) and a total.
- -A, -B and -C (or context) add lines of context after, before, or around each match, -n (default true) shows line numbers, and -o prints only the matched parts, one match per line (context lines stay whole); these apply to content mode only.
- By default a match is confined to one line. With multiline: true, patterns can span lines and . also matches newlines, e.g. struct \{[\s\S]*?name or (?s)BEGIN.*?END.
- head_limit caps the entries returned (lines in content mode, files or counts otherwise); the default is 250 and 0 means no cap. offset skips that many entries first: use it to page through long results, as the truncation note tells you.
- Like ripgrep, the search includes hidden files but skips .git and other version-control directories, files ignored by .gitignore, .ignore or .rgignore files, binary files (a NUL byte in the first 64 KB) and symbolic links. A file named in path is searched even if it is ignored. Lines longer than 500 characters are cut short.

Use Glob to find files by name. For an open-ended search that may need several rounds of searching, run independent Grep and Glob calls in parallel in one response.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "pattern": {
      "description": "The regular expression pattern to search for in file contents",
      "type": "string"
    },
    "path": {
      "description": "File or directory to search in (rg PATH). Defaults to current working directory.",
      "type": "string"
    },
    "glob": {
      "description": "Glob pattern to filter files (e.g. \"*.js\", \"*.{ts,tsx}\") - maps to rg --glob",
      "type": "string"
    },
    "output_mode": {
      "description": "Output mode: \"content\" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), \"files_with_matches\" shows file paths (supports head_limit), \"count\" shows match counts (supports head_limit). Defaults to \"files_with_matches\".",
      "type": "string",
      "enum": ["content", "files_with_matches", "count"]
    },
    "-B": {
      "description": "Number of lines to show before each match (rg -B). Requires output_mode: \"content\", ignored otherwise.",
      "type": "number"
    },
    "-A": {
      "description": "Number of lines to show after each match (rg -A). Requires output_mode: \"content\", ignored otherwise.",
      "type": "number"
    },
    "-C": {
      "description": "Alias for context.",
      "type": "number"
    },
    "context": {
      "description": "Number of lines to show before and after each match (rg -C). Requires output_mode: \"content\", ignored otherwise.",
      "type": "number"
    },
    "-n": {
      "description": "Show line numbers in output (rg -n). Requires output_mode: \"content\", ignored otherwise. Defaults to true.",
      "type": "boolean"
    },
    "-i": {
      "description": "Case insensitive search (rg -i)",
      "type": "boolean"
    },
    "-o": {
      "description": "Print only the matched (non-empty) parts of each matching line, one match per output line (rg -o / --only-matching). Requires output_mode: \"content\", ignored otherwise. Defaults to false.",
      "type": "boolean"
    },
    "type": {
      "description": "File type to search (rg --type). Common types: js, py, rust, go, java, etc. More efficient than include for standard file types.",
      "type": "string"
    },
    "head_limit": {
      "description": "Limit output to first N lines/entries, equivalent to \"| head -N\". Works across all output modes: content (limits output lines), files_with_matches (limits file paths), count (limits count entries). Defaults to 250 when unspecified. Pass 0 for unlimited (use sparingly — large result sets waste context).",
      "type": "number"
    },
    "offset": {
      "description": "Skip first N lines/entries before applying head_limit, equivalent to \"| tail -n +N | head -N\". Works across all output modes. Defaults to 0.",
      "type": "number"
    },
    "multiline": {
      "description": "Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.",
      "type": "boolean"
    }
  },
  "required": ["pattern"],
  "additionalProperties": false
}`
