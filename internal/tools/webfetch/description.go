package webfetch

const description = `Fetches a web page and returns its content as Markdown, together with your prompt.

- url must be a complete http:// or https:// URL. A plain http URL on the default port is fetched over https, except for addresses the operator has explicitly allowed.
- prompt says what you want from the page. This server runs no model: the prompt is returned beside the content, and the caller (or you) applies it to the page. Keep it specific, for example "list the function signatures" or "what does the changelog say about version 2.1?".
- HTML is converted to Markdown; plain text, JSON, XML and other text types are returned as they are. Images, PDFs and other binary content are not returned: download those with Bash instead.
- Large pages are read in windows: one call returns at most a fixed number of characters of the page's text, and a note at the end gives the offset to pass to read on. The download itself also stops at a size limit; the result says so when it did.
- Redirects within the same host are followed. A redirect to another host is not: the result gives the new URL, and you call WebFetch again with it if you want that page.
- The server refuses addresses of its own machine and networks (loopback, private, link-local, cloud metadata) unless its operator allows them.
- Results are cached for 15 minutes per session, so fetching the same URL again is cheap; the result says when it came from the cache.

WebFetch only reads; it never sends data to the page beyond the request itself. Pages that need a login or JavaScript to show their content will not work. For an authenticated service, prefer a dedicated tool (for example an MCP tool or a command-line client through Bash).`

const inputSchema = `{
  "type": "object",
  "properties": {
    "url": {
      "type": "string",
      "format": "uri",
      "minLength": 1,
      "maxLength": 2000,
      "description": "The URL to fetch: http or https, with a host name or address."
    },
    "prompt": {
      "type": "string",
      "minLength": 1,
      "description": "What to look for in the page. It is returned with the content for the caller to apply."
    },
    "offset": {
      "type": "integer",
      "minimum": 0,
      "maximum": 9007199254740991,
      "description": "Character position in the page text to start reading from. Use it to read on through a page too long for one call, with the value the previous result gave."
    }
  },
  "required": ["url", "prompt"],
  "additionalProperties": false
}`
