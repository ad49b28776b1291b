package read

import (
	"fmt"
	"strings"
)

// describe writes the tool's description with the limits in force.
func describe(o *Options) string {
	mb := func(n int64) string {
		return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.2f", float64(n)/(1<<20)), "0"), ".0") + " MB"
	}
	return fmt.Sprintf(`Reads a file from the session's workspace and returns its contents.

file_path should be an absolute path; a relative path is taken from the session's current directory. Any file in the workspace or its additional directories can be read. It is fine to call Read on a path that may not exist: you will get an error saying so.

Results are returned in cat -n format: each line is its number, a tab, then the line as it is in the file, numbered from 1 (or from the offset given). The whole file is returned by default; a file over 256KB is refused unless you pass offset and limit (the line number to start at and how many lines to return) or allow_large: true. Prefer reading the whole file when it is small enough.

The result is numbered like `+"`cat -n`"+`: each line starts with its line number right-aligned in 6 columns, then a tab, then the line's text. The number and the tab are not part of the file: never put them in Edit's old_string or new_string.

Images (PNG, JPEG, GIF and WebP) are returned as images you can look at. An image larger than %[3]d pixels on a side or %[4]s is scaled down (and may be re-encoded as JPEG) before it is returned, and a note gives its original size; images over %[5]d megapixels are refused.

PDF files are returned as a document: you see each page as text and as an image. Pages are not converted to text here; the pages asked for are cut out into a PDF of their own. A PDF of more than %[6]d pages must be read with the pages parameter (for example pages: "1-5"), and one call returns at most %[7]d pages; reading a large PDF without pages fails with its page count.

Jupyter notebooks (.ipynb) are returned whole: every cell with its outputs, code, text and pictures. Each cell is shown as <cell id="..." type="..."> with its outputs inside; a cell without an id is named cell-N (counting from 0), the name NotebookEdit's cell_id takes. offset and limit do not apply to notebooks; a notebook too large for one result, or over %[8]s, is refused with a hint to read parts of it with jq through Bash.

A tool result too long to return whole is shown as <persisted-output> with its start and a handle such as toold-result://toolu_01ABC: give the handle as file_path to read the stored result, with offset and limit as for a text file.

Other binary files are refused with an error. Directories cannot be read: use Glob to find files, or ls through Bash to list a directory. An empty file, or an offset past the last line, gives a short notice instead of content.

Reading a file is what allows Write, Edit and NotebookEdit to change it afterwards. When several files may be useful, read them in parallel with several Read calls in one response.`,
		2000, o.MaxOutputBytes/1000, o.MaxImageDimension, mb(o.MaxImageBytes), o.MaxImagePixels/1_000_000,
		pdfWholeMaxPages, pdfMaxPagesPerCall, mb(o.MaxNotebookBytes))
}

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
      "description": "The line number to start reading from (1 is the first line). Only give it when the file is too large to read at once."
    },
    "limit": {
      "type": "integer",
      "description": "The number of lines to read (by default, all of them). Only give it when the file is too large to read at once."
    },
    "allow_large": {
      "type": "boolean",
      "description": "Read a file over the size limit whole anyway. Only when you genuinely need all of it or the user asked for the whole file."
    },
    "pages": {
      "type": "string",
      "description": "The pages of a PDF to read, such as \"3\", \"1-5\" or \"1-3,8\" (pages count from 1; at most 20 per call). Required for PDFs of more than 10 pages; only for PDF files."
    }
  },
  "required": ["file_path"],
  "additionalProperties": false
}`
