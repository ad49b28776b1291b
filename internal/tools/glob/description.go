package glob

const description = `Finds files by name with glob patterns. It is fast in codebases of any size and returns the paths of matching files relative to the current working directory (absolute outside it), the least recently modified first.

Pattern syntax: * matches any characters except /, ? matches one character, [abc], [a-z] and [!abc] match one character of a set, {a,b} matches either alternative, and ** matches any number of directories, none included. A backslash escapes the next character. Examples: **/*.go, src/**/*.ts, **/*.{json,yaml}, cmd/*/main.go, **/README.md.

The pattern is matched against paths relative to the search directory: path if given, otherwise the current working directory. A pattern without a slash matches file names at any depth: *.go finds every Go file below the search directory; a pattern with a slash, such as src/*.go, matches from the search directory only. An absolute pattern such as /repo/src/**/*.ts is also accepted: the directories before the first wildcard become the search directory (it must be inside the workspace), the rest is matched from there as a pattern of its own (so /repo/src/*.ts finds .ts files at any depth below /repo/src), and path is then ignored. A relative pattern may start with ../ to search a sibling directory inside the workspace.

Only regular files are listed: directories and symbolic links are not, and symbolically linked directories are not entered. Hidden files and directories are included and .gitignore is not consulted, so build output and dependency directories (node_modules, vendor) appear unless the pattern excludes them. The contents of version-control directories (.git, .hg, .svn, .jj, .bzr) are skipped unless the pattern names that directory, as in .git/**.

At most 100 paths are returned, the oldest. When more files match, the result says how many are not listed: use a more specific pattern or path. "No files found" means nothing matched.

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
