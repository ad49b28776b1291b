package grep

import (
	"errors"
	"path"

	"github.com/toold/toold/internal/tools/glob/dirfd"
)

// dirCache opens each directory below a root once, for looking at many
// files of ripgrep's hits that share few directories. A directory that
// cannot be opened is remembered as nil, and so are those below it.
type dirCache struct {
	dirs map[string]dirfd.Dir
}

func newDirCache(root dirfd.Dir) *dirCache {
	return &dirCache{dirs: map[string]dirfd.Dir{".": root}}
}

// open returns the directory at the slash-separated relative path dir, or
// nil.
func (c *dirCache) open(dir string) dirfd.Dir {
	if d, ok := c.dirs[dir]; ok {
		return d
	}
	var d dirfd.Dir
	if parent := c.open(path.Dir(dir)); parent != nil {
		d, _ = parent.OpenDir(path.Base(dir))
	}
	c.dirs[dir] = d
	return d
}

// lstat looks up the file of a hit: rel relative to the root, or file
// when rel is empty (a search of one file).
func (c *dirCache) lstat(rel, file string) (dirfd.Info, error) {
	name, dir := path.Base(rel), path.Dir(rel)
	if rel == "" {
		name, dir = file, "."
	}
	d := c.open(dir)
	if d == nil {
		return dirfd.Info{}, errNoDir
	}
	return d.Lstat(name)
}

var errNoDir = errors.New("directory cannot be opened")

// close closes every directory it opened, the root included.
func (c *dirCache) close() {
	for _, d := range c.dirs {
		if d != nil {
			d.Close()
		}
	}
}
