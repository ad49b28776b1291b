package grep

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// results is what a backend found, unordered.
type results struct {
	hits []*fileHit
	// capped: the search stopped early because it had collected too much.
	capped bool
}

// maxResultBytes keeps a result under the engine's 100,000-character cut,
// so that the note saying where to continue is never what gets cut.
const maxResultBytes = 90_000

// render orders the hits, pages them and writes the text the model reads.
// Both backends go through it, which is what makes their output identical.
func render(t *target, q *query, r *results) *tool.Result {
	switch q.mode {
	case filesMode:
		// Newest first, as Claude Code lists them; ties in the order of
		// JavaScript's localeCompare on the paths.
		slices.SortFunc(r.hits, func(a, b *fileHit) int {
			if a.mtime != b.mtime {
				if a.mtime > b.mtime {
					return -1
				}
				return 1
			}
			return localeCompare(a.rel, b.rel)
		})
	default:
		// By path, byte by byte, as Claude Code lists them.
		slices.SortFunc(r.hits, func(a, b *fileHit) int { return strings.Compare(a.rel, b.rel) })
	}
	var entries []string
	total := 0
	switch q.mode {
	case filesMode:
		for _, h := range r.hits {
			entries = append(entries, t.relative(h.rel))
		}
	case countMode:
		for _, h := range r.hits {
			entries = append(entries, t.relative(h.rel)+":"+strconv.Itoa(h.count))
			total += h.count
		}
	case contentMode:
		entries = contentLines(t, q, r.hits)
	}
	res := page(q, entries, total, len(r.hits))
	res.WithMeta("mode", q.mode.String()).WithMeta("num_files", len(r.hits))
	if r.capped {
		res.Content[0].Text += "\n(The search stopped early because it produced too much output: narrow the pattern, path, glob or type.)"
		res.WithMeta("truncated", true)
	}
	return res
}

// contentLines formats lines as ripgrep prints them: path:N:text for a
// match, path-N-text for context, and "--" between groups that are not
// adjacent (and between files) when context was asked for. A search of
// one file prints no path, as ripgrep does for a single file.
func contentLines(t *target, q *query, hits []*fileHit) []string {
	var out []string
	withContext := q.before > 0 || q.after > 0
	for i, h := range hits {
		name := ""
		if t.file == "" {
			name = t.relative(h.rel)
		}
		for j, l := range h.lines {
			// Several matches of one line (rg -o) are not a gap.
			if withContext && ((j == 0 && i > 0) || (j > 0 && l.num > h.lines[j-1].num+1)) {
				out = append(out, "--")
			}
			sep := "-"
			if l.match {
				sep = ":"
			}
			var b strings.Builder
			b.Grow(len(name) + len(l.text) + 12)
			if name != "" {
				b.WriteString(name)
				b.WriteString(sep)
			}
			if q.lineNumbers {
				b.WriteString(strconv.Itoa(l.num))
				b.WriteString(sep)
			}
			text := l.text
			if long(text) {
				text = omittedContext
				if l.match {
					text = omittedMatch
				}
			}
			b.WriteString(text)
			out = append(out, b.String())
		}
	}
	return out
}

// page applies offset and head_limit to the entries and writes Claude
// Code's notes: "limit: N" when head_limit cut the list, "offset: M" when
// an offset was given.
func page(q *query, entries []string, total, files int) *tool.Result {
	start := min(q.offset, len(entries))
	shown := entries[start:]
	cut := q.headLimit > 0 && len(shown) > q.headLimit
	if cut {
		shown = shown[:q.headLimit]
	}
	var notes []string
	if cut {
		notes = append(notes, "limit: "+strconv.Itoa(q.headLimit))
	}
	if q.offset > 0 {
		notes = append(notes, "offset: "+strconv.Itoa(q.offset))
	}
	info := strings.Join(notes, ", ")
	// Entries past maxResultBytes are left out, so that the engine's cut
	// never hides the notes.
	var body strings.Builder
	kept := 0
	for _, e := range shown {
		if kept > 0 && body.Len()+len(e)+1 > maxResultBytes {
			break
		}
		if kept > 0 {
			body.WriteByte('\n')
		}
		body.WriteString(e)
		kept++
	}
	if kept < len(shown) {
		cut = true
		if info == "" {
			info = "limit: " + strconv.Itoa(kept)
		}
	}
	var text string
	switch q.mode {
	case filesMode:
		switch {
		case len(entries) == 0:
			text = "No files found"
		case len(shown) == 0:
			text = "No entries at this offset. [Showing results with pagination = " + info + "]"
		default:
			text = fmt.Sprintf("Found %d %s", kept, plural(kept, "file", "files"))
			if info != "" {
				text += " " + info
			}
			text += "\n" + body.String()
		}
	default:
		switch {
		case len(entries) == 0:
			text = "No matches found"
		case len(shown) == 0:
			text = "No entries at this offset"
		default:
			text = body.String()
		}
		if q.mode == countMode {
			text += fmt.Sprintf("\n\nFound %d total %s across %d %s.", total,
				plural(total, "occurrence", "occurrences"), files, plural(files, "file", "files"))
			if info != "" {
				text += " with pagination = " + info
			}
		} else if info != "" {
			text += "\n\n[Showing results with pagination = " + info + "]"
		}
	}
	// Paths and lines are bytes from disk; the result must be UTF-8.
	res := tool.Text(strings.ToValidUTF8(text, "\uFFFD")).
		WithMeta("truncated", cut).
		WithMeta("total_entries", len(entries))
	if cut {
		res.WithMeta("next_offset", start+kept)
	}
	return res
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// binaryFileResult answers a search of one binary file.
func binaryFileResult(t *target, q *query) *tool.Result {
	text := "No files found"
	if q.mode != filesMode {
		text = "No matches found"
	}
	return tool.Text(text+"\n("+t.shown+" is a binary file and was not searched.)").
		WithMeta("truncated", false).WithMeta("mode", q.mode.String()).WithMeta("num_files", 0)
}

// maxNamedBinary bounds how much of a binary file named as the search path
// is read to answer as ripgrep does.
const maxNamedBinary = 64 << 20

// namedBinaryResult answers a search of one file with a NUL byte in its
// first 64 KiB as ripgrep does for a file it was given by name: it
// searches it with NUL as a line break, and shows a match not as lines
// but as ripgrep's note "binary file matches (found "\0" byte around
// offset N)"; no match is no match. Nil leaves the answer to binaryFileResult (count mode, a
// later NUL, a pattern only ripgrep reads).
func namedBinaryResult(t *target, q *query, p *pattern) *tool.Result {
	if q.mode == countMode {
		return nil
	}
	if p == nil {
		var err error
		if p, err = compilePattern(q.pattern, q.ignoreCase, q.multiline); err != nil {
			return nil
		}
	}
	loc, err := t.dir.Child(t.file)
	if err != nil {
		return nil
	}
	f, err := loc.Open()
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxNamedBinary+1))
	if err != nil || len(data) > maxNamedBinary {
		return nil
	}
	data = decodeBOM(data)
	nul := bytes.IndexByte(data, 0)
	if nul < 0 || nul >= binaryWindow {
		return nil
	}
	text := bytes.ReplaceAll(data, []byte{0}, []byte{'\n'})
	if !p.re.Match(text) {
		return render(t, q, &results{})
	}
	res := tool.Text(fmt.Sprintf("binary file matches (found \"\\0\" byte around offset %d)", nul))
	if q.mode == filesMode {
		res = tool.Text("Found 1 file\n" + t.relative(""))
	}
	return res.WithMeta("truncated", false).WithMeta("mode", q.mode.String()).WithMeta("num_files", 1)
}
