package read

import (
	"bufio"
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// sniffLen is how much of the file decides between image, binary and text.
const sniffLen = 8 << 10

// maxBuffer is the read buffer of a large file; a small file gets a buffer
// of its own size, so reading it costs one small allocation.
const maxBuffer = 64 << 10

// Run reads the file. Claude Code wraps in <tool_use_error> only what its
// input check refuses (a binary file by its name, a bad pages value: the
// invalid-input errors here); what fails while the file is read (missing,
// a directory, too large, not a valid notebook or PDF) it gives bare.
func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	res, err := c.run(ctx, env)
	var te *tool.Error
	if errors.As(err, &te) && te == err && te.Kind != tool.KindInvalidInput {
		return nil, tool.Bare(te)
	}
	return res, err
}

func (c *call) run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	if id, ok := tool.ParseResultHandle(c.path); ok {
		return c.stored(ctx, env, id)
	}
	if id, ok := tool.ParseTaskOutputHandle(c.path); ok {
		return c.taskOutput(ctx, env, id)
	}
	t, err := filestate.Locate(env, c.path)
	if err != nil {
		return nil, err
	}
	// Claude Code refuses a binary file by its name, before looking at it.
	if ext := binaryExt(t.Given.Abs); ext != "" {
		return nil, tool.InvalidInputf("This tool cannot read binary files. The file appears to be a binary %s file. Use a skill for this file type if one is available, or a shell command or script that can read the format.", ext)
	}
	// Stat before opening: opening a FIFO would block, a directory is an
	// error of its own.
	fi, err := t.Real.StatResolved()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, filestate.Missing(env, t)
	}
	if err != nil {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}
	if fi.IsDir() {
		return nil, tool.Errorf(tool.KindWrongType, "EISDIR: illegal operation on a directory, read '%s'", t.Given.Abs)
	}
	if !fi.Mode().IsRegular() {
		return nil, tool.Failf("%s is not a regular file (%s); only regular files can be read.", t.Given.Abs, fi.Mode().Type())
	}
	// Open refuses a file with several hard links: one of its names may
	// be outside the workspace.
	f, ofi, err := t.Real.OpenStat()
	if err != nil {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}
	defer f.Close()
	// The stamp hashes the bytes read through this descriptor, the
	// content the model sees.
	hr := filestate.NewHasher(&onceEOF{r: f})
	br := bufio.NewReaderSize(hr, bufferSize(fi.Size()))
	head, err := br.Peek(min(sniffLen, br.Size()))
	whole := errors.Is(err, io.EOF)
	if err != nil && !whole && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}

	res, err := c.read(ctx, t, fi, br, head, whole)
	if err != nil {
		return nil, err
	}
	st, err := hr.Stamp(ofi)
	if err != nil {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}
	if c.partial {
		st = filestate.Partial(st)
	}
	if err := filestate.Record(ctx, env, t, st); err != nil {
		return nil, err
	}
	return res, nil
}

// onceEOF reads r until its first end of file, then answers EOF itself:
// bufio asks again after every EOF it hands on (a peek, each line read
// past the end), which cost a small file three more read system calls.
type onceEOF struct {
	r   io.Reader
	eof bool
}

func (o *onceEOF) Read(p []byte) (int, error) {
	if o.eof {
		return 0, io.EOF
	}
	n, err := o.r.Read(p)
	o.eof = err == io.EOF
	return n, err
}

func bufferSize(size int64) int {
	if size >= maxBuffer {
		return maxBuffer
	}
	// One byte more than the file, so the first fill also sees EOF.
	return max(int(size)+1, 16)
}

// read dispatches on what the file holds: the content decides for images
// and PDFs, the name for notebooks (JSON says nothing of what it holds).
func (c *call) read(ctx context.Context, t filestate.Target, fi fs.FileInfo, br *bufio.Reader, head []byte, whole bool) (*tool.Result, error) {
	// As in Claude Code, the name decides: an image extension (or none,
	// and an image's signature), .pdf, .ipynb.
	mediaType := ""
	if imageExt(t.Given.Abs) || filepath.Ext(t.Given.Abs) == "" {
		mediaType = imageType(head)
	}
	pdf := mediaType == "" && named(t, ".pdf")
	switch {
	case mediaType != "":
		return c.image(ctx, t, fi, br, mediaType)
	case pdf:
		return c.pdf(t, fi, br)
	case named(t, ".ipynb"):
		return c.notebook(ctx, t, fi, br)
	}
	res, err := c.text(ctx, br, fi.Size())
	if err != nil {
		return nil, filestate.AccessError(t.Given.Abs, err)
	}
	return res, nil
}

// named reports whether the file, as the model named it or as its
// symlinks resolve, has the extension ext.
func named(t filestate.Target, ext string) bool {
	return strings.EqualFold(filepath.Ext(t.Given.Abs), ext) || strings.EqualFold(filepath.Ext(t.Real.Abs), ext)
}
