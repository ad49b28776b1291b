package read

import (
	"bytes"
	"net/http"
	"unicode/utf8"

	"github.com/toold/toold/internal/tool"
)

// imageType returns the media type of the image formats the Messages API
// accepts, judged by content: an extension says nothing about a file the
// model may have produced itself. The signatures are those
// http.DetectContentType matches (WebP included); matching them directly
// keeps the text path free of the sniffer's cost.
func imageType(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && bytes.HasPrefix(head, []byte("RIFF")) && string(head[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// checkText refuses content that cannot be shown as text: NUL bytes or
// invalid UTF-8 in the first bytes of the file. whole says head is the
// entire file; otherwise a character cut at its end is not held against it.
func checkText(path string, head []byte, whole bool) error {
	if bytes.IndexByte(head, 0) >= 0 {
		return tool.Failf("Cannot read %s: it is a binary file (%s) and cannot be shown as text. Use Bash (for example file, xxd or strings) to inspect it.",
			path, http.DetectContentType(head))
	}
	if !whole {
		head = tool.TrimPartialRune(head)
	}
	if !utf8.Valid(head) {
		return tool.Failf("Cannot read %s: it is not UTF-8 text. It may be binary, or text in another encoding such as Latin-1 (convert it with iconv through Bash).", path)
	}
	return nil
}
