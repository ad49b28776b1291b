package shells

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// spool is a shell's output on disk. It is a run of segment files of at
// most segBytes each, of which only the newest maxSegs are kept: when the
// output passes the cap, the oldest segment is removed whole, so the kept
// part stays between cap-segBytes and cap bytes and nothing is ever
// rewritten. Offsets count every byte the shell wrote, dropped or not, so a
// reader's position stays meaningful across drops.
type spool struct {
	dir      string
	segBytes int64
	maxSegs  int

	mu    sync.Mutex
	segs  []segment // oldest first
	total int64     // bytes ever written
	// err is the first write error; output after it is discarded.
	err error
	// changed is closed and replaced whenever output arrives or the shell
	// ends, waking the readers waiting for either.
	changed chan struct{}
	seq     int

	// f is the newest segment, used by the writer goroutine only.
	f *os.File
}

type segment struct {
	name        string
	start, size int64
}

func newSpool(dir string, capBytes int64) *spool {
	const maxSegs = 4
	return &spool{
		dir:      dir,
		segBytes: max(capBytes/maxSegs, 1),
		maxSegs:  maxSegs,
		changed:  make(chan struct{}),
	}
}

// write appends p. Only the shell's copy goroutine calls it.
func (sp *spool) write(p []byte) {
	for len(p) > 0 {
		sp.mu.Lock()
		failed := sp.err != nil
		full := len(sp.segs) == 0 || sp.segs[len(sp.segs)-1].size >= sp.segBytes
		room := sp.segBytes
		if !full {
			room -= sp.segs[len(sp.segs)-1].size
		}
		sp.mu.Unlock()
		if failed {
			return
		}
		if full || sp.f == nil {
			if err := sp.rotate(); err != nil {
				sp.fail(err)
				return
			}
		}
		n := int(min(int64(len(p)), room))
		w, err := sp.f.Write(p[:n])
		sp.mu.Lock()
		sp.segs[len(sp.segs)-1].size += int64(w)
		sp.total += int64(w)
		if err != nil && sp.err == nil {
			sp.err = err
		}
		sp.notifyLocked()
		sp.mu.Unlock()
		p = p[n:]
	}
}

// rotate starts a new segment and removes those past maxSegs.
func (sp *spool) rotate() error {
	if sp.f != nil {
		sp.f.Close()
		sp.f = nil
	}
	sp.mu.Lock()
	name := fmt.Sprintf("%08d", sp.seq)
	sp.seq++
	sp.mu.Unlock()
	f, err := os.OpenFile(filepath.Join(sp.dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	sp.f = f
	sp.mu.Lock()
	sp.segs = append(sp.segs, segment{name: name, start: sp.total})
	var drop []segment
	for len(sp.segs) > sp.maxSegs {
		drop = append(drop, sp.segs[0])
		sp.segs = sp.segs[1:]
	}
	sp.mu.Unlock()
	// A reader that opened a dropped file still reads it; one that had not
	// yet opened it counts its bytes as dropped (see rangeReader).
	for _, s := range drop {
		os.Remove(filepath.Join(sp.dir, s.name))
	}
	return nil
}

func (sp *spool) fail(err error) {
	sp.mu.Lock()
	if sp.err == nil {
		sp.err = err
	}
	sp.mu.Unlock()
}

// finish closes the newest segment once the output has ended.
func (sp *spool) finish() {
	if sp.f != nil {
		sp.f.Close()
		sp.f = nil
	}
	sp.notify()
}

func (sp *spool) notify() {
	sp.mu.Lock()
	sp.notifyLocked()
	sp.mu.Unlock()
}

func (sp *spool) notifyLocked() {
	close(sp.changed)
	sp.changed = make(chan struct{})
}

// waitChan returns a channel closed at the next change.
func (sp *spool) waitChan() <-chan struct{} {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.changed
}

// written returns how many bytes have been written in all.
func (sp *spool) written() int64 {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.total
}

// view is what a reader sees of the spool at one moment.
type view struct {
	segs   []segment
	oldest int64 // offset of the first kept byte
	total  int64
	err    error
}

func (sp *spool) snapshot() view {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	v := view{segs: append([]segment(nil), sp.segs...), oldest: sp.total, total: sp.total, err: sp.err}
	if len(sp.segs) > 0 {
		v.oldest = sp.segs[0].start
	}
	return v
}

// reader reads the bytes [from, to) of a view; from must be at least
// v.oldest.
func (sp *spool) reader(v view, from, to int64) *rangeReader {
	return &rangeReader{dir: sp.dir, segs: v.segs, pos: from, to: to}
}

// rangeReader reads a range of a view across its segment files.
type rangeReader struct {
	dir  string
	segs []segment
	pos  int64
	to   int64
	// lost counts bytes whose segment was dropped between the view and the
	// read. Drops take the oldest segments, so lost bytes are always at the
	// start of the range.
	lost int64

	f    *os.File
	fSeg segment
}

func (r *rangeReader) Read(p []byte) (int, error) {
	for r.pos < r.to {
		if r.f == nil {
			seg, ok := r.segmentAt(r.pos)
			if !ok {
				return 0, fmt.Errorf("shell output: offset %d is in no segment", r.pos)
			}
			f, err := os.Open(filepath.Join(r.dir, seg.name))
			if errors.Is(err, fs.ErrNotExist) {
				end := min(seg.start+seg.size, r.to)
				r.lost += end - r.pos
				r.pos = end
				continue
			}
			if err != nil {
				return 0, err
			}
			r.f, r.fSeg = f, seg
		}
		end := min(r.fSeg.start+r.fSeg.size, r.to)
		if r.pos >= end {
			r.closeFile()
			continue
		}
		n := int(min(int64(len(p)), end-r.pos))
		n, err := r.f.ReadAt(p[:n], r.pos-r.fSeg.start)
		r.pos += int64(n)
		if err != nil && !(err == io.EOF && n > 0) {
			r.closeFile()
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
		return n, nil
	}
	r.closeFile()
	return 0, io.EOF
}

func (r *rangeReader) segmentAt(off int64) (segment, bool) {
	for _, s := range r.segs {
		if off >= s.start && off < s.start+s.size {
			return s, true
		}
	}
	return segment{}, false
}

func (r *rangeReader) closeFile() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}
