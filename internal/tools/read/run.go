package read

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// sniffLen is how much of the file decides between image, binary and text.
const sniffLen = 8 << 10

// maxBuffer is the read buffer of a large file; a small file gets a buffer
// of its own size, so reading it costs one small allocation.
const maxBuffer = 64 << 10

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	t, err := filestate.Locate(env, c.path)
	if err != nil {
		return nil, err
	}
	// Stat before opening: opening a FIFO would block, a directory is an
	// error of its own. The stamp is this Stat's, so a change between here
	// and the read can only make a later write be refused, never allowed.
	fi, err := t.Real.Stat()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, missing(env, t)
	}
	if err != nil {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}
	if fi.IsDir() {
		return nil, tool.Failf("%s is a directory, not a file. Use Glob to find files in it, or ls through Bash to list it.", t.Given.Abs)
	}
	if !fi.Mode().IsRegular() {
		return nil, tool.Failf("%s is not a regular file (%s); only regular files can be read.", t.Given.Abs, fi.Mode().Type())
	}
	f, err := t.Real.Open()
	if err != nil {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}
	defer f.Close()

	br := bufio.NewReaderSize(f, bufferSize(fi.Size()))
	head, err := br.Peek(min(sniffLen, br.Size()))
	whole := errors.Is(err, io.EOF)
	if err != nil && !whole && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}

	var res *tool.Result
	if mediaType := imageType(head); mediaType != "" {
		res, err = c.image(t, fi, br, mediaType)
	} else if err = checkText(t.Given.Abs, head, whole); err == nil {
		if res, err = c.text(ctx, br); err != nil {
			err = filestate.AccessError(t.Given.Abs, err)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := filestate.Record(ctx, env, t, fi); err != nil {
		return nil, err
	}
	return res, nil
}

func bufferSize(size int64) int {
	if size >= maxBuffer {
		return maxBuffer
	}
	// One byte more than the file, so the first fill also sees EOF.
	return max(int(size)+1, 16)
}
