package glob

const description = `Finds files by name with glob patterns. It is fast in codebases of any size and returns the absolute paths of matching files, the most recently modified first.

Pattern syntax: * matches any characters except /, ? matches one character, [abc], [a-z] and [!abc] match one character of a set, {a,b} matches either alternative, and ** matches any number of directories, none included. A backslash escapes the next character. Examples: **/*.go, src/**/*.ts, **/*.{json,yaml}, cmd/*/main.go, **/README.md.

The pattern is matched against paths relative to the search directory: path if given, otherwise the current working directory. *.go matches only files directly in that directory; write **/*.go to include every subdirectory. An absolute pattern such as /repo/src/**/*.ts is also accepted: the part before the first wildcard becomes the search directory (it must be inside the workspace) and path is then ignored. A relative pattern may start with ../ to search a sibling directory inside the workspace.

Only regular files are listed: directories and symbolic links are not, and symbolically linked directories are not entered. Hidden files and directories are included and .gitignore is not consulted, so build output and dependency directories (node_modules, vendor) appear unless the pattern excludes them. The contents of version-control directories (.git, .hg, .svn, .jj, .bzr) are skipped unless the pattern names that directory, as in .git/**.

At most 100 paths are returned. When more files match, the result says it was truncated: use a more specific pattern or path. "No files found" means nothing matched.

Use Glob to find files by name; use Grep to search file contents. For an open-ended search that may need several rounds of globbing and grepping, run independent searches in parallel in one response.`

const inputSchema = `{
  "type": "object",
  "properties": {
    "pattern": {
      "type": "string",
      "minLength": 1,
      "description": "The glob pattern to match files against, e.g. **/*.ts or src/**/test_*.py. Relative to path; an absolute pattern names its own directory."
    },
    "path": {
      "type": "string",
      "description": "The directory to search in, absolute or relative to the current working directory. Omit it to search the current working directory; do not pass \"undefined\" or \"null\"."
    }
  },
  "required": ["pattern"],
  "additionalProperties": false
}`
