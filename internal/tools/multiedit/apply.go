package multiedit

import (
	"errors"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/filestate"
)

// applied is the outcome of every edit on the content in memory.
type applied struct {
	content []byte
	counts  []int // occurrences replaced by each edit
}

// apply runs the edits in order on content. Nothing touches the file here:
// the caller writes the result only once every edit has succeeded, which is
// what makes the call all or nothing.
func apply(path string, content []byte, edits []edit) (applied, error) {
	out := applied{content: content, counts: make([]int, len(edits))}
	for i, e := range edits {
		if e.OldString == "" {
			// Parse lets only the first edit be empty.
			if len(out.content) > 0 {
				return applied{}, failed(i, len(edits), path, tool.Failf(
					"Cannot create %s: the file already exists and is not empty. An empty old_string only creates a file (or fills an empty one); give the text to replace in old_string.", path))
			}
			out.content, out.counts[i] = []byte(e.NewString), 1
			continue
		}
		r, err := filestate.Replace(out.content, e.OldString, e.NewString, e.ReplaceAll)
		if err != nil {
			return applied{}, failed(i, len(edits), path, err)
		}
		out.content, out.counts[i] = r.Content, r.Count
	}
	return out, nil
}

// failed names the edit that failed and says that nothing was written.
func failed(i, n int, path string, err error) error {
	msg, kind := err.Error(), tool.KindFailed
	var te *tool.Error
	if errors.As(err, &te) {
		msg, kind = te.Msg, te.Kind
	}
	return tool.Errorf(kind, "Edit %d of %d failed: %s\nNo edit was applied; %s is unchanged.", i+1, n, msg, path)
}
