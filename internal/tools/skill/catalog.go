package skill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxSkillBytes bounds one SKILL.md: a skill is instructions for the
// model, and a larger file would only fill its context.
const maxSkillBytes = 1 << 20

// maxSkills bounds how many skills one directory offers.
const maxSkills = 1000

// Skill is one SKILL.md, read.
type Skill struct {
	// Name is the skill's directory name; Alias is the frontmatter's
	// name when it differs. Either finds it.
	Name, Alias string
	Description string
	// Dir is the skill's directory (the base directory the model is told).
	Dir string
	// Body is the text after the frontmatter.
	Body string
	// ModelDisabled: disable-model-invocation, the skill is the user's
	// to run, not the model's.
	ModelDisabled bool
	// Safe: the frontmatter holds only keys that change nothing about
	// what the model may do (no allowed-tools, hooks, ...), so the skill
	// runs without asking, as in Claude Code.
	Safe bool
}

// safeKeys are the frontmatter keys of a skill that Claude Code runs
// without asking: descriptive ones and the model choice. Any other key
// (allowed-tools, hooks, context, agent, ...) grants or runs something, and
// the call asks.
var safeKeys = map[string]bool{
	"name": true, "description": true, "argument-hint": true, "arguments": true,
	"when_to_use": true, "when-to-use": true, "model": true, "effort": true,
	"version": true, "license": true, "metadata": true,
	"disable-model-invocation": true, "user-invocable": true,
}

// parse reads a SKILL.md's frontmatter and body.
func parse(name, dir string, data []byte) (*Skill, error) {
	s := &Skill{Name: name, Dir: dir, Safe: true}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	body := text
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		end := strings.Index(rest, "\n---")
		if end >= 0 && (len(rest) == end+4 || rest[end+4] == '\n') {
			front := rest[:end]
			body = rest[min(end+5, len(rest)):]
			var m map[string]any
			if err := yaml.Unmarshal([]byte(front), &m); err != nil {
				return nil, fmt.Errorf("%s/SKILL.md: the frontmatter is not YAML: %v", dir, err)
			}
			for k, v := range m {
				if !safeKeys[k] {
					s.Safe = false
				}
				switch k {
				case "name":
					if n, ok := v.(string); ok && n != name {
						s.Alias = n
					}
				case "description":
					s.Description = fmt.Sprint(v)
				case "disable-model-invocation":
					s.ModelDisabled = v == true || v == "true"
				}
			}
		}
	}
	s.Body = strings.TrimLeft(body, "\n")
	return s, nil
}

// source is one directory of skills: DIR/NAME/SKILL.md.
type source interface {
	// read returns the SKILL.md of name, or fs.ErrNotExist.
	read(name string) ([]byte, string, error)
	// names lists the skill directories.
	names() ([]string, error)
}

// opDir is an operator's skill directory, trusted as the operator's
// settings are.
type opDir string

func (d opDir) read(name string) ([]byte, string, error) {
	dir := filepath.Join(string(d), name)
	f, err := os.Open(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	b, err := readCapped(f)
	return b, dir, err
}

func (d opDir) names() ([]string, error) { return listDirs(os.DirFS(string(d))) }

// wsDir is a workspace's .claude/skills, read through an os.Root of the
// session's primary directory, so that no link in the workspace leads the
// read outside it.
type wsDir struct{ root string }

func (d wsDir) read(name string) ([]byte, string, error) {
	r, err := os.OpenRoot(d.root)
	if err != nil {
		return nil, "", err
	}
	defer r.Close()
	f, err := r.Open(filepath.Join(".claude", "skills", name, "SKILL.md"))
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	b, err := readCapped(f)
	return b, filepath.Join(d.root, ".claude", "skills", name), err
}

func (d wsDir) names() ([]string, error) {
	r, err := os.OpenRoot(d.root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sub, err := r.OpenRoot(filepath.Join(".claude", "skills"))
	if err != nil {
		return nil, err
	}
	defer sub.Close()
	return listDirs(sub.FS())
}

func readCapped(f io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(f, maxSkillBytes+1))
	if err == nil && len(b) > maxSkillBytes {
		err = fmt.Errorf("SKILL.md is larger than %d bytes", maxSkillBytes)
	}
	return b, err
}

func listDirs(fsys fs.FS) ([]string, error) {
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if len(out) == maxSkills {
			break
		}
		if validName(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// validName: a skill's directory name, one path element that is not
// hidden. A name the model gives that is not one is never looked up.
func validName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.HasPrefix(n, ".") &&
		!strings.ContainsAny(n, "/\\\x00") && len(n) <= 255
}

// Catalog finds skills: the operator's directories first, then (when
// enabled) the session's workspace. An operator's skill cannot be
// shadowed by a workspace's of the same name.
type Catalog struct {
	dirs      []opDir
	workspace bool
}

// NewCatalog returns a catalog of the operator's skill directories (each
// holding NAME/SKILL.md) and, with workspace, each session's
// .claude/skills.
func NewCatalog(dirs []string, workspace bool) *Catalog {
	c := &Catalog{workspace: workspace}
	for _, d := range dirs {
		c.dirs = append(c.dirs, opDir(d))
	}
	return c
}

func (c *Catalog) sources(root string) []source {
	out := make([]source, 0, len(c.dirs)+1)
	for _, d := range c.dirs {
		out = append(out, d)
	}
	if c.workspace && root != "" {
		out = append(out, wsDir{root})
	}
	return out
}

// ErrUnknown: no skill has that name.
var ErrUnknown = errors.New("unknown skill")

// Find returns the skill named name (its directory name, or the name its
// frontmatter gives) for a session whose primary directory is root.
func (c *Catalog) Find(root, name string) (*Skill, error) {
	if !validName(name) {
		return nil, ErrUnknown
	}
	srcs := c.sources(root)
	for _, src := range srcs {
		b, dir, err := src.read(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return parse(name, dir, b)
	}
	// A frontmatter name: read the skills until one has it.
	all, err := c.List(root)
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if s.Alias == name {
			return s, nil
		}
	}
	return nil, ErrUnknown
}

// List returns every skill a session whose primary directory is root
// can use, the operator's first, each name once. Skills whose SKILL.md
// cannot be read or parsed are left out.
func (c *Catalog) List(root string) ([]*Skill, error) {
	seen := map[string]bool{}
	var out []*Skill
	for _, src := range c.sources(root) {
		names, err := src.names()
		if err != nil {
			continue // no such directory
		}
		sort.Strings(names)
		for _, n := range names {
			if seen[n] {
				continue
			}
			b, dir, err := src.read(n)
			if err != nil {
				continue
			}
			s, err := parse(n, dir, b)
			if err != nil {
				continue
			}
			seen[n] = true
			out = append(out, s)
		}
	}
	return out, nil
}

// Asks reports whether loading the skill named name needs permission: it
// exists, the model may load it, and its frontmatter grants or runs
// something (allowed-tools, hooks, ...). An unknown or model-disabled
// skill does not ask: the call then fails on its own, as Claude Code's
// input check fails it before any permission is asked. The permission
// check (policy.Options.Skills) asks it.
func (c *Catalog) Asks(root, name string) bool {
	s, err := c.Find(root, strings.TrimPrefix(name, "/"))
	return err == nil && !s.ModelDisabled && !s.Safe
}
