package grep

import (
	"bytes"
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// fileHit is what one file contributed to a search.
type fileHit struct {
	rel   string // slash path below the search root; "" for a file searched by name
	mtime int64  // UnixNano, for files_with_matches order
	links uint64 // rg only: hard links, 0 when the file could not be looked at
	count int    // content: unused; count: matching lines (or matches, across lines)
	lines []outLine
}

// outLine is one line of content output.
type outLine struct {
	num   int
	match bool // a matching line, not context
	text  string
}

// binaryWindow is how much ripgrep reads before its first look for NUL
// bytes: a NUL in the first 64 KiB makes the whole file binary.
const binaryWindow = 64 << 10

// searcher runs a query over file contents the way ripgrep does.
type searcher struct {
	p *pattern
	q *query
}

// search returns what the file contributes, or nil. named is set for a
// file given as the search path, searched whole: the caller has checked
// that it holds no NUL at all (see target.isBinary).
func (s *searcher) search(data []byte, named bool) *fileHit {
	data = decodeBOM(data)
	if bytes.IndexByte(data[:min(len(data), binaryWindow)], 0) >= 0 {
		return nil
	}
	text, late := data, false
	if !named && bytes.IndexByte(data, 0) >= 0 {
		// ripgrep reads a file to search across lines whole, and drops it
		// on a NUL anywhere; line by line, it keeps what it had searched
		// before the buffer where the NUL showed up.
		if s.p.spans {
			return nil
		}
		text, late = data[:readableLimit(data)], true
	}
	switch s.q.mode {
	case filesMode:
		if s.any(text) {
			return &fileHit{count: 1}
		}
	case countMode:
		// ripgrep drops the count of a file it found to be binary.
		if n := s.count(text); n > 0 && !late {
			return &fileHit{count: n}
		}
	case contentMode:
		if lines := s.content(text); len(lines) > 0 {
			return &fileHit{lines: lines}
		}
	}
	return nil
}

func (s *searcher) any(text []byte) bool {
	if s.p.spans {
		return s.p.re.Match(text)
	}
	found := false
	s.eachLine(text, func(int, int) bool { found = true; return false })
	return found
}

func (s *searcher) count(text []byte) int {
	n := 0
	if s.p.spans {
		for _, m := range s.p.re.FindAllIndex(text, -1) {
			if !emptyAtEnd(text, m) {
				n++
			}
		}
		return n
	}
	s.eachLine(text, func(int, int) bool { n++; return true })
	return n
}

func (s *searcher) content(text []byte) []outLine {
	c := &collector{text: text, before: s.q.before, after: s.q.after, nextNum: 1, countNum: 1}
	switch {
	case s.p.spans:
		s.eachBlock(text, func(start, end int, ms [][]int) {
			if !s.q.onlyMatching {
				ms = nil
			}
			c.block(start, end, ms)
		})
	case s.q.onlyMatching:
		s.eachLine(text, func(ls, le int) bool {
			ms := s.p.re.FindAllIndex(text[ls:le], -1)
			for _, m := range ms {
				m[0], m[1] = m[0]+ls, m[1]+ls
			}
			c.block(ls, lineEnd(text, le), ms)
			return true
		})
	default:
		s.eachLine(text, func(ls, le int) bool { c.block(ls, lineEnd(text, le), nil); return true })
	}
	c.finish()
	return c.lines
}

// eachLine calls fn with the start and end (before the newline) of each
// matching line, in order, until fn returns false. The pattern cannot
// match a newline here, so a line matches iff a match starts in it.
func (s *searcher) eachLine(text []byte, fn func(start, end int) bool) {
	var scan *litScan
	if s.p.pre.usable(text) {
		scan = s.p.pre.scanner(text)
	}
	for pos := 0; pos < len(text); {
		var at int
		if scan != nil {
			if at = scan.from(pos); at < 0 {
				return
			}
			ls, le := lineStart(text, at), lineBreak(text, at)
			if !s.p.re.Match(text[ls:le]) {
				pos = le + 1
				continue
			}
		} else {
			loc := s.p.re.FindIndex(text[pos:])
			if loc == nil {
				return
			}
			at = pos + loc[0]
			if at == len(text) && text[at-1] == '\n' {
				return // the empty "line" after the last newline
			}
		}
		ls, le := lineStart(text, at), lineBreak(text, at)
		if !fn(ls, le) {
			return
		}
		pos = le + 1
	}
}

// eachBlock calls fn with each run of lines covered by matches that may
// span lines, merging matches whose lines touch, as ripgrep's multi-line
// searcher does, and with the matches in it. Blocks end after their last
// newline.
func (s *searcher) eachBlock(text []byte, fn func(start, end int, ms [][]int)) {
	bs, be := -1, -1
	var in [][]int
	for _, m := range s.p.re.FindAllIndex(text, -1) {
		if emptyAtEnd(text, m) {
			continue
		}
		ls := lineStart(text, m[0])
		var le int
		if m[1] > ls && text[m[1]-1] == '\n' {
			le = m[1]
		} else {
			le = lineEnd(text, lineBreak(text, m[1]))
		}
		if bs >= 0 && be >= ls {
			be = max(be, le)
			in = append(in, m)
			continue
		}
		if bs >= 0 {
			fn(bs, be, in)
		}
		bs, be, in = ls, le, [][]int{m}
	}
	if bs >= 0 {
		fn(bs, be, in)
	}
}

// emptyAtEnd is an empty match after the final newline, which ripgrep
// never reports.
func emptyAtEnd(text []byte, m []int) bool {
	return m[0] == m[1] && m[0] == len(text) && (len(text) == 0 || text[len(text)-1] == '\n')
}

func lineStart(text []byte, at int) int {
	return bytes.LastIndexByte(text[:at], '\n') + 1
}

// lineBreak is the offset of the newline ending the line holding at, or
// len(text) for a last line without one.
func lineBreak(text []byte, at int) int {
	if i := bytes.IndexByte(text[at:], '\n'); i >= 0 {
		return at + i
	}
	return len(text)
}

// lineEnd is the offset just past the line ending at brk.
func lineEnd(text []byte, brk int) int {
	return min(brk+1, len(text))
}

// collector gathers matching lines and their context in file order, each
// line once.
type collector struct {
	text          []byte
	before, after int
	lines         []outLine
	// nextOff and nextNum are the start and number of the first line not
	// yet emitted; owed is the after-context still to emit.
	nextOff, nextNum int
	owed             int
	// countOff and countNum cache a known line number for counting.
	countOff, countNum int
}

func (c *collector) numAt(off int) int {
	if off < c.countOff {
		c.countOff, c.countNum = 0, 1
	}
	c.countNum += bytes.Count(c.text[c.countOff:off], []byte{'\n'})
	c.countOff = off
	return c.countNum
}

// block emits the matching lines in [start, end) with their context, or,
// when ms holds the matches in it (rg -o), each match instead of its lines.
func (c *collector) block(start, end int, ms [][]int) {
	num := c.numAt(start)
	for c.owed > 0 && c.nextOff < start {
		c.emitAt(c.nextOff, c.nextNum, false)
		c.owed--
	}
	first := max(num-c.before, c.nextNum)
	off := start
	for n := num; n > first; n-- {
		off = lineStart(c.text, off-1)
	}
	for n := first; n < num; n++ {
		off = c.emitAt(off, n, false)
	}
	if ms != nil {
		c.emitMatches(ms, end)
	} else {
		for off, n := start, num; off < end; n++ {
			off = c.emitAt(off, n, true)
		}
	}
	c.owed = c.after
}

// emitMatches adds each match as ripgrep's --only-matching prints it: a
// match over several lines gives one output line per line it touches,
// each with its own number, and an empty match an empty line. end is where
// the block's lines end.
func (c *collector) emitMatches(ms [][]int, end int) {
	for _, m := range ms {
		num := c.numAt(m[0])
		part := c.text[m[0]:m[1]]
		for {
			brk := bytes.IndexByte(part, '\n')
			if brk < 0 {
				c.lines = append(c.lines, outLine{num: num, match: true, text: clip(part)})
				break
			}
			c.lines = append(c.lines, outLine{num: num, match: true, text: clip(part[:brk])})
			if part = part[brk+1:]; len(part) == 0 {
				break // a match ending at a line break adds no empty line
			}
			num++
		}
	}
	c.nextOff, c.nextNum = end, c.numAt(end)
}

func (c *collector) finish() {
	for c.owed > 0 && c.nextOff < len(c.text) {
		c.emitAt(c.nextOff, c.nextNum, false)
		c.owed--
	}
}

// emitAt adds the line starting at off and returns where the next starts.
func (c *collector) emitAt(off, num int, match bool) int {
	brk := lineBreak(c.text, off)
	c.lines = append(c.lines, outLine{num: num, match: match, text: clip(c.text[off:brk])})
	next := lineEnd(c.text, brk)
	c.nextOff, c.nextNum = next, num+1
	return next
}

// maxLineChars is Claude Code's limit on a shown line: a line longer than
// 500 characters (JavaScript's length: UTF-16 code units; the line break
// not counted) is replaced by a note.
const maxLineChars = 500

// longLine stands for a line over maxLineBytes; contentLines writes
// ripgrep's note in its place. No searched line holds a NUL.
const longLine = "\x00"

const (
	omittedMatch   = "[Omitted long matching line]"
	omittedContext = "[Omitted long context line]"
)

func clip(line []byte) string {
	if len(line) <= maxLineChars {
		return string(line)
	}
	if n := utf16Len(line); n > maxLineChars {
		return longLine
	}
	return string(line)
}

// utf16Len is the length JavaScript gives the line: two units for a
// character past U+FFFF, one for any other character or invalid byte.
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r > 0xFFFF {
			n++
		}
		n++
		b = b[size:]
	}
	return n
}

func long(text string) bool { return text == longLine }

// readableLimit is how much of a file with a NUL past the first 64 KiB
// ripgrep searches before it stops: the complete lines of the buffers it
// filled before the one holding the NUL. This replays its line buffer (64
// KiB, refilled after moving the unfinished last line to the front, grown
// threefold when one line does not fit).
func readableLimit(data []byte) int {
	capacity := binaryWindow
	start, end := 0, 0 // buffer contents [start, end) in file offsets
	for {
		lastTerm := -1
		for lastTerm < 0 {
			if end-start == capacity {
				capacity *= 3
			}
			n := min(capacity-(end-start), len(data)-end)
			if n == 0 {
				return len(data)
			}
			chunk := data[end : end+n]
			if bytes.IndexByte(chunk, 0) >= 0 {
				return start
			}
			end += n
			if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
				lastTerm = end - n + i + 1
			}
		}
		start = lastTerm
	}
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// decodeBOM drops a UTF-8 byte order mark and transcodes UTF-16 text
// marked by one, as ripgrep does before searching.
func decodeBOM(data []byte) []byte {
	switch {
	case bytes.HasPrefix(data, utf8BOM):
		return data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return utf16ToUTF8(data[2:], binary.LittleEndian)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return utf16ToUTF8(data[2:], binary.BigEndian)
	}
	return data
}

func utf16ToUTF8(b []byte, order binary.ByteOrder) []byte {
	units := make([]uint16, len(b)/2)
	for i := range units {
		units[i] = order.Uint16(b[2*i:])
	}
	out := make([]byte, 0, len(b))
	for _, r := range utf16.Decode(units) {
		out = utf8.AppendRune(out, r)
	}
	if len(b)%2 == 1 {
		out = utf8.AppendRune(out, utf8.RuneError)
	}
	return out
}
