//go:build !linux

package dirfd

import "io/fs"

func openFast(fsys fs.FS) (Dir, error) { return OpenFS(fsys) }
