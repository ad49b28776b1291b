package filestate

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"

	"github.com/toold/toold/internal/tool"
)

// The messages of the read-before-write rule. The wording is Claude
// Code's, which models know how to act on.
const (
	NotReadMessage  = "File has not been read yet. Read it first before writing to it."
	ModifiedMessage = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
)

// Seen is how a file on disk relates to what the model last saw of it.
type Seen int

const (
	// SeenCurrent: the model read (or wrote) the file in this session and
	// it has not changed since.
	SeenCurrent Seen = iota
	// SeenNever: the model has not read the file in this session.
	SeenNever
	// SeenChanged: the file changed on disk since the model last read it.
	SeenChanged
	// SeenPartial: the file is as the model last saw it, but the model
	// has not seen all of it (a Read of some lines, or an Edit of a file
	// it had not seen whole).
	SeenPartial
)

// NotRead is the refusal of a change of a file the model has not read.
func NotRead() error { return tool.Errorf(tool.KindConflict, "%s", NotReadMessage) }

// Modified is the refusal of a change of a file that changed on disk
// since the model read it.
func Modified() error { return tool.Errorf(tool.KindConflict, "%s", ModifiedMessage) }

// Policy is how strictly a change is held to what the model read.
type Policy struct {
	// RequireRead refuses to change an existing file that the model has
	// not read in this session, or that changed on disk since it read it
	// (KindConflict). Without it the rule is Claude Code's: Write replaces
	// a file never read, Edit changes a file never read or changed since
	// (it says so), and only a Write over a changed file is refused.
	RequireRead bool
}

// Refusal is the error that p gives a change of a file in state s, or nil.
func (p Policy) Refusal(s Seen) error {
	if !p.RequireRead {
		return nil
	}
	switch s {
	case SeenNever:
		return NotRead()
	case SeenChanged:
		return Modified()
	}
	return nil
}

// Check compares a file, as fi (from a Stat of the open, locked file) and
// content (all of it) describe it, with the session's stamp of t.
func Check(ctx context.Context, env *tool.Env, t Target, fi fs.FileInfo, content []byte) (Seen, error) {
	st, ok, err := env.State.ReadStamp(ctx, t.Real.Abs)
	if err != nil {
		return SeenNever, fmt.Errorf("checking whether %s was read: %w", t.Given.Abs, err)
	}
	partial := strings.HasPrefix(st.Hash, partialPrefix)
	st.Hash = strings.TrimPrefix(st.Hash, partialPrefix)
	switch {
	case !ok:
		return SeenNever, nil
	case !matches(st, fi, content):
		return SeenChanged, nil
	case partial:
		return SeenPartial, nil
	}
	return SeenCurrent, nil
}

// partialPrefix marks the hash of a stamp of a file the model has not
// seen whole.
const partialPrefix = "partial:"

// Partial marks st as the stamp of a file the model has seen only in part:
// it still counts as read (the stricter policy lets it be changed), but an
// Edit of it says nothing of the model's view being current.
func Partial(st tool.FileStamp) tool.FileStamp {
	if st.Hash != "" && !strings.HasPrefix(st.Hash, partialPrefix) {
		st.Hash = partialPrefix + st.Hash
	}
	return st
}

// MaxHashBytes is the largest file whose content a stamp hashes (the
// largest file Edit changes). A larger file's stamp holds its modification
// time and size only, which two writes within one clock tick can share: a
// documented limit, and such files are rarely written by a model.
const MaxHashBytes = 64 << 20

// StampOf is the stamp of a file as fi describes it, without a hash.
func StampOf(fi fs.FileInfo) tool.FileStamp {
	return tool.FileStamp{ModTime: fi.ModTime(), Size: fi.Size()}
}

// StampContent is the stamp of content, the whole of the file fi
// describes: it is hashed when small enough.
func StampContent(fi fs.FileInfo, content []byte) tool.FileStamp {
	st := tool.FileStamp{ModTime: fi.ModTime(), Size: int64(len(content))}
	if len(content) <= MaxHashBytes {
		st.Hash = hashOf(content)
	}
	return st
}

// hashPrefix names the hash in stored stamps, so that another can replace
// it later without a stamp of one being compared with the other's.
const hashPrefix = "xxh64:"

// hashOf is the content hash of a stamp: XXH64, which detects any change
// between two versions with a chance of a miss of 2^-64, at several GB/s
// (a Read of a 64 MiB file hashes it whole; SHA-256 would cost it about
// fifteen times longer). It need not resist forged collisions: whoever can
// write the file can change it at will anyway.
func hashOf(b []byte) string { return hashString(xxhash.Sum64(b)) }

func hashString(sum uint64) string {
	return hashPrefix + strconv.FormatUint(sum, 16)
}

// Hasher hashes whatever is read through it, so that Read stamps the
// content it showed, not what a later look at the file would find.
type Hasher struct {
	r   io.Reader
	h   *xxhash.Digest
	n   int64
	eof bool
}

// NewHasher reads from r.
func NewHasher(r io.Reader) *Hasher { return &Hasher{r: r, h: xxhash.New()} }

func (h *Hasher) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.eof = h.eof || err == io.EOF
	if h.n <= MaxHashBytes {
		h.h.Write(p[:n])
	}
	h.n += int64(n)
	return n, err
}

// Stamp reads what is left of the file (up to the hash limit) and returns
// the stamp of all of it; fi is the open file's fstat. A file past the
// limit gets a stamp without a hash.
func (h *Hasher) Stamp(fi fs.FileInfo) (tool.FileStamp, error) {
	// Reads of up to 256 KiB (io.Discard would read 8 KiB at a time), and
	// no buffer at all when the view reached the end.
	var buf []byte
	if !h.eof {
		buf = make([]byte, min(max(fi.Size()-h.n+1, 512), 256<<10))
	}
	for !h.eof && h.n <= MaxHashBytes {
		_, err := h.Read(buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			return tool.FileStamp{}, err
		}
	}
	if h.n > MaxHashBytes {
		return StampOf(fi), nil
	}
	return tool.FileStamp{ModTime: fi.ModTime(), Size: h.n, Hash: hashString(h.h.Sum64())}, nil
}

// Record remembers that the model has seen t as st describes it (after a
// read, or after the tool wrote it itself).
func Record(ctx context.Context, env *tool.Env, t Target, st tool.FileStamp) error {
	if err := env.State.RecordRead(ctx, t.Real.Abs, st); err != nil {
		return fmt.Errorf("recording that %s was read: %w", t.Given.Abs, err)
	}
	return nil
}

// stamp returns the session's stamp of t, or the not-read refusal.
func stamp(ctx context.Context, env *tool.Env, t Target) (tool.FileStamp, error) {
	st, ok, err := env.State.ReadStamp(ctx, t.Real.Abs)
	if err != nil {
		return st, fmt.Errorf("checking whether %s was read: %w", t.Given.Abs, err)
	}
	if !ok {
		return st, NotRead()
	}
	st.Hash = strings.TrimPrefix(st.Hash, partialPrefix)
	return st, nil
}

// matches reports whether the file's content (as fi and content describe
// it) is the version st stamped: the same hash when st has one, else the
// same modification time and size.
func matches(st tool.FileStamp, fi fs.FileInfo, content []byte) bool {
	if st.Hash != "" {
		return int64(len(content)) == st.Size && hashOf(content) == st.Hash
	}
	return st.ModTime.Equal(fi.ModTime()) && st.Size == fi.Size()
}
