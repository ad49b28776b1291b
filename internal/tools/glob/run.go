package glob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/glob/dirfd"
	"github.com/toold/toold/internal/workspace"
)

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	root, pattern, err := c.searchRoot(env)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return noFiles(), nil
	}
	// A Read deny rule hides paths from Glob's results
	// (https://code.claude.com/docs/en/permissions "Read and Edit"), and
	// what is below a hidden directory is hidden too.
	hidden := env.Hidden
	if hidden != nil && hidden(root.Abs) {
		return noFiles(), nil
	}
	fsys, err := root.FS()
	if err != nil {
		return nil, err
	}
	d, err := dirfd.Open(fsys)
	if err != nil {
		return nil, err
	}
	w := newWalker(ctx, newMatcher(pattern), maxResults)
	if hidden != nil {
		abs := root.Abs
		w.hidden = func(rel string) bool { return hidden(joinAbs(abs, rel)) }
	}
	top := w.run(d)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return format(env.Cwd, root.Abs, top), nil
}

// searchRoot returns the directory to walk and the pattern relative to it.
// The literal leading directories of the pattern are moved into the root
// (doublestar.SplitPattern), which both confines an absolute or ../ pattern
// to the workspace through Locate and spares the walk every directory
// outside that prefix. A nil Loc means the pattern's own directory does
// not exist, which is simply no match.
func (c *call) searchRoot(env *tool.Env) (*workspace.Loc, string, error) {
	base, pattern := doublestar.SplitPattern(anyDepth(c.pattern))
	var dir string
	if filepath.IsAbs(c.pattern) {
		// The pattern names its own directory; path would contradict it.
		// What follows that directory is matched as a pattern of its own,
		// as Claude Code does: /ws/sub/*.txt finds /ws/sub/deep/c.txt.
		base, pattern = doublestar.SplitPattern(c.pattern)
		pattern = anyDepth(pattern)
		dir = base
	} else {
		start := env.Cwd
		if c.path != "" {
			loc, err := locateDir(env, c.path)
			if err != nil {
				return nil, "", err
			}
			start = loc.Abs
		}
		dir = filepath.Join(start, base)
	}
	loc, err := env.Files.Locate(env.Cwd, dir)
	if err != nil {
		return nil, "", locateError(err)
	}
	fi, err := loc.Stat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, pattern, nil
	case err != nil:
		return nil, "", err
	case !fi.IsDir():
		return nil, pattern, nil
	}
	return &loc, pattern, nil
}

// locateDir checks the path argument: it must name an existing directory.
func locateDir(env *tool.Env, p string) (workspace.Loc, error) {
	loc, err := env.Files.Locate(env.Cwd, p)
	if err != nil {
		return loc, locateError(err)
	}
	fi, err := loc.Stat()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return loc, tool.Bare(tool.Errorf(tool.KindNotFound, "Directory does not exist: %s. Note: your current working directory is %s.", loc.Abs, env.Cwd))
	case err != nil:
		return loc, err
	case !fi.IsDir():
		return loc, tool.Bare(tool.Errorf(tool.KindWrongType, "Path is not a directory: %s", loc.Abs))
	}
	return loc, nil
}

// locateError passes an escape through (the engine reports it as a
// permission denial) and makes any other refusal of a spelling invalid
// input.
func locateError(err error) error {
	if errors.Is(err, workspace.ErrOutside) {
		return err
	}
	return tool.InvalidInputf("%v", err)
}

func noFiles() *tool.Result {
	return tool.Text("No files found").WithMeta("num_files", 0).WithMeta("truncated", false)
}

// format lists the matches relative to the working directory cwd, as
// Claude Code does; a match outside cwd keeps its absolute path.
func format(cwd, root string, top *topK) *tool.Result {
	if top.total == 0 {
		return noFiles()
	}
	matches := top.sorted()
	var b strings.Builder
	for i, m := range matches {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(display(cwd, joinAbs(root, m.rel)))
	}
	truncated := top.total > len(matches)
	if truncated {
		fmt.Fprintf(&b, "\n(Showing %d of %d matching files; %d more are not listed. Narrow the pattern or path to see the rest.)",
			len(matches), top.total, top.total-len(matches))
	}
	return tool.Text(b.String()).
		WithMeta("num_files", len(matches)).
		WithMeta("total_files", top.total).
		WithMeta("truncated", truncated)
}

// display is p relative to cwd when p is below it, else p.
func display(cwd, p string) string {
	if rel, ok := strings.CutPrefix(p, strings.TrimSuffix(cwd, "/")+"/"); ok && rel != "" {
		return rel
	}
	return p
}

func joinAbs(root, rel string) string {
	if strings.HasSuffix(root, "/") {
		return root + rel
	}
	return root + "/" + rel
}
