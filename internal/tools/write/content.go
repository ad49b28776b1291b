package write

import "unsafe"

// contentBytes is the content to write as bytes without a copy of it: a
// Write carries a whole file (up to the request size limit), and each
// copy is that much more memory per concurrent call. The slice aliases
// the string, so it must only be read: the file is written from it and
// nothing else holds it.
func contentBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
