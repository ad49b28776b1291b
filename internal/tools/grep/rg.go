package grep

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/glob/dirfd"
)

// rgBackend runs the ripgrep binary.
type rgBackend struct {
	path string
}

var rgVersion = regexp.MustCompile(`^ripgrep (\d+)\.`)

// findRg returns ripgrep when path (or "rg" on PATH) is version 13 or
// later, which has every flag used here.
func findRg(path string) (*rgBackend, bool) {
	if path == "" {
		p, err := exec.LookPath("rg")
		if err != nil {
			return nil, false
		}
		path = p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return nil, false
	}
	m := rgVersion.FindSubmatch(out)
	if m == nil {
		return nil, false
	}
	if major, _ := strconv.Atoi(string(m[1])); major < 13 {
		return nil, false
	}
	return &rgBackend{path: path}, true
}

// args builds ripgrep's command line from the query alone; nothing goes
// through a shell. The pattern is one argument, --regexp=<pattern> (the
// long form of -e), and the path follows "--", so no input is ever read as
// a flag; flags that run programs (--pre, --search-zip, --hostname-bin)
// are never passed.
func (b *rgBackend) args(t *target, q *query) []string {
	a := []string{
		"--no-config", // RIPGREP_CONFIG_PATH is not ours to obey
		"--color=never",
		"--no-heading",
		"--with-filename", // also when a single file is searched
		"--null",          // a NUL after each path: names may hold ':'
		"--hidden",        // dotfiles are searched, as in Claude Code
		"--no-follow",     // symbolic links are not followed
		// .gitignore applies inside a git repository only, as in
		// Claude Code; the user's global git excludes are not read.
		"--no-ignore-global",
		// Lines past 2000 bytes, which are all over Claude Code's 500
		// characters, come back as ripgrep's note; the parser checks
		// the others (clip).
		"--max-columns=2000",
	}
	switch q.mode {
	case filesMode:
		a = append(a, "--files-with-matches")
	case countMode:
		a = append(a, "--count")
	case contentMode:
		// Always numbered: the number tells match lines from context.
		a = append(a, "--line-number",
			"--before-context="+strconv.Itoa(q.before), "--after-context="+strconv.Itoa(q.after))
		if q.onlyMatching {
			a = append(a, "--only-matching")
		}
	}
	if q.ignoreCase {
		a = append(a, "--ignore-case")
	}
	if q.multiline {
		a = append(a, "--multiline", "--multiline-dotall")
	}
	for _, g := range q.globs {
		a = append(a, "--glob="+g)
	}
	// Last, so that no glob of the caller can let VCS directories back in.
	vcs := make([]string, 0, len(vcsDirs))
	for d := range vcsDirs {
		vcs = append(vcs, d)
	}
	slices.Sort(vcs)
	for _, d := range vcs {
		a = append(a, "--glob=!"+d)
	}
	if q.fileType != "" {
		a = append(a, "--type="+q.fileType)
	}
	// Claude Code's ripgrep wraps the pattern as a group, and its error
	// messages quote it so: (?:pattern).
	a = append(a, "--regexp=(?:"+q.pattern+")", "--")
	if t.file != "" {
		return append(a, t.file)
	}
	return append(a, ".")
}

// maxRgOutput bounds what is read from ripgrep; past it the search stops.
const maxRgOutput = 64 << 20

func (b *rgBackend) search(ctx context.Context, env *tool.Env, t *target, q *query) (*results, error) {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	cmd := exec.CommandContext(runCtx, b.path, b.args(t, q)...)
	cmd.Dir = t.dir.Abs
	cmd.Env = env.Environ
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	ownProcessGroup(cmd)
	stderr := &limitedBuffer{max: 64 << 10}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, tool.Failf("cannot run rg: %v", err)
	}
	r := &results{}
	p := &rgParser{q: q, named: t.file != "", files: map[string]*fileHit{}}
	if p.stamp, err = newStamper(t); err != nil {
		stop()
		cmd.Wait()
		return nil, err
	}
	r.capped = p.parse(stdout)
	p.stamp.wait()
	if r.capped {
		stop() // kills rg's process group
	}
	io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !r.capped {
		if err := rgFailure(waitErr, stderr.String(), len(p.files) > 0); err != nil {
			return nil, err
		}
	}
	for _, h := range p.files {
		r.hits = append(r.hits, h)
	}
	r.hits = singleLinked(r.hits)
	return r, nil
}

// singleLinked drops the hits of files with more than one hard link, and
// of files the stamper could not look at. ripgrep opens files itself, by
// name, so it reads a hard link whose other name is outside the
// workspace; the built-in engine refuses such a file on its open
// descriptor (dirfd.ErrHardLink), and so do the other file tools. Here the
// check can only follow ripgrep's read: a link renamed away between the
// two is missed (see docs/hard-links.md).
func singleLinked(hits []*fileHit) []*fileHit {
	return slices.DeleteFunc(hits, func(h *fileHit) bool { return h.links != 1 })
}

// rgFailure interprets ripgrep's exit: 0 found, 1 found nothing, 2 an
// error. Errors about single files (unreadable ones) leave the rest of
// the results valid, as they do for rg itself; an error before any search
// (the pattern, a glob) is the model's to fix.
func rgFailure(waitErr error, stderr string, found bool) error {
	if waitErr == nil {
		return nil
	}
	var ee *exec.ExitError
	if !errors.As(waitErr, &ee) {
		return tool.Failf("rg failed: %v", waitErr)
	}
	switch code := ee.ExitCode(); {
	case code == 1:
		return nil
	case code == 2 && found:
		return nil
	case code == 2:
		msg := strings.TrimSpace(stderr)
		switch {
		case strings.Contains(msg, "is not allowed in a regex"):
			return errNewline()
		case msg == "" || strings.Contains(msg, "(os error"):
			return nil
		// Errors in the arguments come first and name no file; warnings
		// about an ignore file start with its path and do not fail rg.
		case strings.Contains(msg, "regex"), strings.HasPrefix(msg, "error parsing glob"),
			strings.HasPrefix(msg, "unrecognized file type"):
			return rejected("%s", strings.TrimPrefix(msg, "rg: "))
		}
		return tool.Failf("rg failed: %s", msg)
	}
	return tool.Failf("rg failed: %v: %s", waitErr, strings.TrimSpace(stderr))
}

// rgParser reads ripgrep's --null output into file hits.
type rgParser struct {
	q     *query
	named bool // one file was searched by name
	files map[string]*fileHit
	read  int
	stamp *stamper // gets each new hit
}

// parse consumes the output and reports whether it stopped at the cap.
func (p *rgParser) parse(r io.Reader) bool {
	br := bufio.NewReaderSize(r, 256<<10)
	delim := byte('\n')
	if p.q.mode == filesMode {
		delim = 0 // -l --null ends each path with NUL only
	}
	for {
		rec, err := readRecord(br, delim)
		p.read += len(rec)
		if p.read > maxRgOutput {
			return true
		}
		if len(rec) > 0 {
			p.record(rec)
		}
		if err != nil {
			return false
		}
	}
}

func (p *rgParser) hit(path string) *fileHit {
	rel := strings.TrimPrefix(path, "./")
	if p.named {
		rel = ""
	}
	h := p.files[rel]
	if h == nil {
		h = &fileHit{rel: rel}
		p.files[rel] = h
		if p.stamp != nil {
			p.stamp.add(h)
		}
	}
	return h
}

func (p *rgParser) record(rec []byte) {
	if p.q.mode == filesMode {
		p.hit(string(rec))
		return
	}
	// Lines without a NUL are "--" separators (rebuilt by render) and
	// ripgrep's warnings about binary data found after some matches.
	path, rest, ok := bytes.Cut(rec, []byte{0})
	if !ok {
		return
	}
	if p.q.mode == countMode {
		if n, err := strconv.Atoi(string(rest)); err == nil {
			p.hit(string(path)).count = n
		}
		return
	}
	i := 0
	for i < len(rest) && '0' <= rest[i] && rest[i] <= '9' {
		i++
	}
	if i == 0 || i == len(rest) || (rest[i] != ':' && rest[i] != '-') {
		return
	}
	num, _ := strconv.Atoi(string(rest[:i]))
	h := p.hit(string(path))
	text := clip(rest[i+1:])
	if text == omittedMatch || text == omittedContext {
		text = longLine
	}
	h.lines = append(h.lines, outLine{num: num, match: rest[i] == ':', text: text})
}

// readRecord reads up to delim, which it drops. Overlong records are
// kept whole: ripgrep already cut long lines.
func readRecord(br *bufio.Reader, delim byte) ([]byte, error) {
	line, err := br.ReadSlice(delim)
	if err == bufio.ErrBufferFull {
		buf := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice(delim)
			buf = append(buf, line...)
		}
		line = buf
	}
	return bytes.TrimSuffix(line, []byte{delim}), err
}

// stamper looks at each hit through the workspace while rg is still
// searching, once: its modification time (files_with_matches lists the
// newest first) and its number of links (singleLinked). Each directory
// goes to one worker, which opens it once, component by component from
// the search root. Done after rg ended, one file after another, the same
// lookups made files_with_matches up to twice as slow as rg.
type stamper struct {
	t     *target
	fsys  fs.FS
	queue []chan *fileHit
	wg    sync.WaitGroup
}

const stampWorkers = 4

func newStamper(t *target) (*stamper, error) {
	fsys, err := t.dir.FS()
	if err != nil {
		return nil, err
	}
	s := &stamper{t: t, fsys: fsys}
	for range stampWorkers {
		q := make(chan *fileHit, 256)
		s.queue = append(s.queue, q)
		s.wg.Go(func() { s.work(q) })
	}
	return s, nil
}

func (s *stamper) add(h *fileHit) {
	dir := path.Dir(h.rel)
	sum := 0
	for i := 0; i < len(dir); i++ {
		sum = sum*31 + int(dir[i])
	}
	s.queue[(sum&0x7fffffff)%len(s.queue)] <- h
}

func (s *stamper) wait() {
	for _, q := range s.queue {
		close(q)
	}
	s.wg.Wait()
}

func (s *stamper) work(q chan *fileHit) {
	root, err := dirfd.Open(s.fsys)
	if err != nil {
		for range q {
		}
		return
	}
	dirs := newDirCache(root)
	defer dirs.close()
	for h := range q {
		if info, err := dirs.lstat(h.rel, s.t.file); err == nil {
			h.mtime, h.links = info.ModTime.UnixNano(), info.Links
		}
	}
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
