package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// caseFile is a case file of the oracle: {"cases": [...]}.
type caseFile struct {
	Cases []testCase `json:"cases"`
}

// testCase is one case, as the oracle reads it (oracle.py load_cases and
// prepare_case_dirs). Fields the toold side does not use (prompt, cc_*) are
// left out.
type testCase struct {
	ID        string                     `json:"id"`
	Mode      string                     `json:"mode"`
	Files     map[string]json.RawMessage `json:"files"`
	Dirs      []string                   `json:"dirs"`
	Gen       []genSpec                  `json:"gen"`
	Allow     []string                   `json:"allow"`
	Deny      []string                   `json:"deny"`
	Ask       []string                   `json:"ask"`
	Settings  json.RawMessage            `json:"settings"`
	Aux       map[string]string          `json:"aux"`
	Turns     [][]toolUse                `json:"turns"`
	TooldArgs []string                   `json:"toold_args"`
	Timeout   float64                    `json:"timeout"`
}

// toolUse is one tool_use block of a turn. Input stays raw so that the
// call's JSON reaches toold with the case file's key order.
type toolUse struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Input    json.RawMessage `json:"input"`
	RawInput *string         `json:"raw_input"`
	Compare  *bool           `json:"compare"`
}

func (b toolUse) compared() bool { return b.Compare == nil || *b.Compare }

type genSpec struct {
	Path      string `json:"path"`
	Count     int    `json:"count"`
	Start     int    `json:"start"`
	Text      string `json:"text"`
	MtimeBase *int64 `json:"mtime_base"`
	MtimeStep *int64 `json:"mtime_step"`
}

// fileSpec is a file's content in one of the oracle's forms.
type fileSpec struct {
	Text   *string `json:"text"`
	Repeat *int    `json:"repeat"`
	Suffix string  `json:"suffix"`
	Base64 *string `json:"base64"`
	Lines  *struct {
		Count  int    `json:"count"`
		Format string `json:"format"`
	} `json:"lines"`
	Mtime *int64       `json:"mtime"`
	Mode  *json.Number `json:"mode"`
}

func loadCases(path string) ([]testCase, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f caseFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	for _, c := range f.Cases {
		if seen[c.ID] {
			return nil, fmt.Errorf("%s: duplicate case id %s", path, c.ID)
		}
		seen[c.ID] = true
	}
	return f.Cases, nil
}

// callKey names a compared call as oracle.py compare does: the case id, or
// case#turn.call (both from 1) when the case compares more than one call.
func callKeys(c testCase) map[string]string {
	n := 0
	for _, t := range c.Turns {
		for _, b := range t {
			if b.compared() {
				n++
			}
		}
	}
	keys := map[string]string{}
	for ti, t := range c.Turns {
		for bi, b := range t {
			if !b.compared() {
				continue
			}
			if n == 1 {
				keys[b.ID] = c.ID
			} else {
				keys[b.ID] = fmt.Sprintf("%s#%d.%d", c.ID, ti+1, bi+1)
			}
		}
	}
	return keys
}

// dirs are one side's directories for a case: ${WS}, ${AUX}, ${HOME}.
type dirs struct{ ws, aux, home string }

func caseDirs(base, id string) dirs {
	return dirs{ws: filepath.Join(base, "ws", id), aux: filepath.Join(base, "aux", id), home: filepath.Join(base, "home", id)}
}

func (d dirs) subst(s string) string {
	return strings.NewReplacer("${WS}", d.ws, "${AUX}", d.aux, "${HOME}", d.home).Replace(s)
}

// pyFormat expands {i} and {i:05d} as Python's str.format does for the
// oracle's generated names and lines.
var pyField = regexp.MustCompile(`\{i(?::(0?)(\d+)d)?\}`)

func pyFormat(f string, i int) string {
	return pyField.ReplaceAllStringFunc(f, func(m string) string {
		g := pyField.FindStringSubmatch(m)
		if g[2] == "" {
			return strconv.Itoa(i)
		}
		w, _ := strconv.Atoi(g[2])
		pad := " "
		if g[1] == "0" {
			pad = "0"
		}
		s := strconv.Itoa(i)
		for len(s) < w {
			s = pad + s
		}
		return s
	})
}

// prepare makes the case's workspace, aux scripts and home, as the oracle's
// prepare_case_dirs does.
func prepare(c testCase, d dirs) error {
	for _, p := range []string{d.ws, d.aux, d.home} {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			return err
		}
	}
	for _, dir := range c.Dirs {
		if err := os.MkdirAll(filepath.Join(d.ws, dir), 0o755); err != nil {
			return err
		}
	}
	type item struct {
		rel  string
		spec fileSpec
	}
	var items []item
	for rel, raw := range c.Files {
		var spec fileSpec
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			spec.Text = &s
		} else if err := json.Unmarshal(raw, &spec); err != nil {
			return fmt.Errorf("file %s: %w", rel, err)
		}
		items = append(items, item{rel, spec})
	}
	for _, g := range c.Gen {
		for i := g.Start; i < g.Start+g.Count; i++ {
			text := pyFormat(g.Text, i)
			spec := fileSpec{Text: &text}
			if g.MtimeBase != nil {
				step := int64(1)
				if g.MtimeStep != nil {
					step = *g.MtimeStep
				}
				m := *g.MtimeBase + int64(i)*step
				spec.Mtime = &m
			}
			items = append(items, item{pyFormat(g.Path, i), spec})
		}
	}
	for _, it := range items {
		data, err := it.spec.bytes(d)
		if err != nil {
			return fmt.Errorf("file %s: %w", it.rel, err)
		}
		p := filepath.Join(d.ws, it.rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
		if it.spec.Mode != nil {
			m, err := strconv.ParseUint(it.spec.Mode.String(), 8, 32)
			if err != nil {
				return fmt.Errorf("file %s: mode: %w", it.rel, err)
			}
			if err := os.Chmod(p, os.FileMode(m)); err != nil {
				return err
			}
		}
		if it.spec.Mtime != nil {
			t := time.Unix(*it.spec.Mtime, 0)
			if err := os.Chtimes(p, t, t); err != nil {
				return err
			}
		}
	}
	for name, text := range c.Aux {
		if err := os.WriteFile(filepath.Join(d.aux, name), []byte(d.subst(text)), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// bytes is the file's content; a text (and only a text) gets ${WS} and the
// like replaced, as in the oracle's make_tree.
func (s fileSpec) bytes(d dirs) ([]byte, error) {
	switch {
	case s.Base64 != nil:
		return base64.StdEncoding.DecodeString(*s.Base64)
	case s.Lines != nil:
		f := s.Lines.Format
		if f == "" {
			f = "line {i}"
		}
		var b strings.Builder
		for i := 1; i <= s.Lines.Count; i++ {
			b.WriteString(pyFormat(f, i))
			b.WriteByte('\n')
		}
		return []byte(b.String()), nil
	default:
		text := ""
		if s.Text != nil {
			text = d.subst(*s.Text)
		}
		n := 1
		if s.Repeat != nil {
			n = *s.Repeat
		}
		return []byte(strings.Repeat(text, n) + s.Suffix), nil
	}
}
