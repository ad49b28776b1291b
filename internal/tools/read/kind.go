package read

import (
	"bytes"
	"path/filepath"
	"strings"
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

// binaryExts are the extensions Claude Code refuses to read as binary
// (images and PDFs excepted: those it shows).
var binaryExts = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`.png .jpg .jpeg .gif .bmp .ico .webp .tiff .tif .heic .heif .avif
.mp4 .mov .avi .mkv .webm .wmv .flv .m4v .mpeg .mpg .mp3 .wav .ogg .flac .aac .m4a .wma .aiff .opus
.zip .tar .gz .bz2 .7z .rar .xz .z .tgz .iso .zst .lz4 .whl .exe .dll .so .dylib .bin .o .a .obj .lib
.app .msi .deb .rpm .dmg .apk .pdf .doc .docx .docm .dotx .dotm .xls .xlsx .xlsm .xlsb .xltx .xltm
.ppt .pptx .pptm .ppsx .ppsm .potx .potm .odt .ods .odp .numbers .epub .ttf .otf .woff .woff2 .eot
.pyc .pyo .class .jar .war .ear .node .wasm .rlib .sqlite .sqlite3 .db .mdb .idx .parquet .feather
.npy .npz .pickle .psd .ai .eps .sketch .fig .xd .blend .3ds .max .swf .fla .lockb .dat .data`) {
		binaryExts[e] = true
	}
}

// binaryExt returns the lower-cased extension of a file Claude Code
// refuses as binary, or "".
func binaryExt(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if !binaryExts[ext] || imageExt(path) || ext == ".pdf" {
		return ""
	}
	return ext
}

// imageExt reports an extension Claude Code reads as an image.
func imageExt(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return true
	}
	return false
}
