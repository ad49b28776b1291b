package grep

import (
	"fmt"
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
		// Newest first, as Claude Code lists them; ties by path.
		slices.SortFunc(r.hits, func(a, b *fileHit) int {
			if a.mtime != b.mtime {
				if a.mtime > b.mtime {
					return -1
				}
				return 1
			}
			return strings.Compare(a.rel, b.rel)
		})
	default:
		slices.SortFunc(r.hits, func(a, b *fileHit) int { return strings.Compare(a.rel, b.rel) })
	}
	var entries []string
	total := 0
	switch q.mode {
	case filesMode:
		for _, h := range r.hits {
			entries = append(entries, t.display(h.rel))
		}
	case countMode:
		for _, h := range r.hits {
			entries = append(entries, t.display(h.rel)+":"+strconv.Itoa(h.count))
			total += h.count
		}
	case contentMode:
		entries = contentLines(t, q, r.hits)
	}
	res := page(q, entries, len(r.hits), total)
	res.WithMeta("mode", q.mode.String()).WithMeta("num_files", len(r.hits))
	if r.capped {
		res.Content[0].Text += "\n(The search stopped early because it produced too much output: narrow the pattern, path, glob or type.)"
		res.WithMeta("truncated", true)
	}
	return res
}

// contentLines formats lines as ripgrep prints them: path:N:text for a
// match, path-N-text for context, and "--" between groups that are not
// adjacent (and between files) when context was asked for.
func contentLines(t *target, q *query, hits []*fileHit) []string {
	var out []string
	withContext := q.before > 0 || q.after > 0
	for i, h := range hits {
		name := t.display(h.rel)
		for j, l := range h.lines {
			if withContext && ((j == 0 && i > 0) || (j > 0 && l.num != h.lines[j-1].num+1)) {
				out = append(out, "--")
			}
			sep := "-"
			if l.match {
				sep = ":"
			}
			var b strings.Builder
			b.Grow(len(name) + len(l.text) + 12)
			b.WriteString(name)
			b.WriteString(sep)
			if q.lineNumbers {
				b.WriteString(strconv.Itoa(l.num))
				b.WriteString(sep)
			}
			b.WriteString(l.text)
			out = append(out, b.String())
		}
	}
	return out
}

// page applies offset and head_limit to the entries and adds the notes
// that tell the model what it is looking at and how to see the rest.
func page(q *query, entries []string, files, total int) *tool.Result {
	unit := map[mode]string{filesMode: "files", contentMode: "lines", countMode: "files"}[q.mode]
	if len(entries) == 0 {
		text := "No files found"
		if q.mode != filesMode {
			text = "No matches found"
		}
		return tool.Text(text).WithMeta("truncated", false)
	}
	if q.offset >= len(entries) {
		return tool.Text("No entries at this offset").
			WithMeta("truncated", false).WithMeta("total_entries", len(entries))
	}
	end := len(entries)
	if q.headLimit > 0 {
		end = min(end, q.offset+q.headLimit)
	}
	var b strings.Builder
	if q.mode == filesMode {
		fmt.Fprintf(&b, "Found %d %s\n", files, plural(files, "file", "files"))
	}
	shown := q.offset
	for _, e := range entries[q.offset:end] {
		if b.Len()+len(e)+1 > maxResultBytes && shown > q.offset {
			break
		}
		if shown > q.offset {
			b.WriteByte('\n')
		}
		b.WriteString(e)
		shown++
	}
	if q.mode == countMode {
		fmt.Fprintf(&b, "\n\nFound %d total %s across %d %s.", total,
			plural(total, "occurrence", "occurrences"), files, plural(files, "file", "files"))
	}
	truncated := shown < len(entries)
	switch {
	case truncated:
		fmt.Fprintf(&b, "\n\n(Results truncated: showing %s %d-%d of %d. Use offset: %d to see more.)",
			unit, q.offset+1, shown, len(entries), shown)
	case q.offset > 0:
		fmt.Fprintf(&b, "\n\n(Showing %s %d-%d of %d.)", unit, q.offset+1, shown, len(entries))
	}
	// Paths and lines are bytes from disk; the result must be UTF-8.
	res := tool.Text(strings.ToValidUTF8(b.String(), "\uFFFD")).
		WithMeta("truncated", truncated).
		WithMeta("total_entries", len(entries))
	if truncated {
		res.WithMeta("next_offset", shown)
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
