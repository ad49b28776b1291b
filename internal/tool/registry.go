package tool

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Registry is the tool pool: built-in tools first, each part sorted by name,
// so that the definitions the model sees form a stable prefix for prompt
// caching. It is immutable once built.
type Registry struct {
	list   []Tool
	byName map[string]entry
}

// entry keeps each tool's definition, taken once: Definition may build its
// value on every call, and the call path needs the name several times.
type entry struct {
	tool Tool
	def  Definition
}

// NewRegistry builds a registry of built-in tools. Names must be unique and
// must not collide with another tool's alias.
func NewRegistry(builtins ...Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]entry, len(builtins)*2)}
	for _, t := range builtins {
		d := t.Definition()
		if d.Name == "" {
			return nil, fmt.Errorf("tool with empty name")
		}
		if !json.Valid(d.InputSchema) {
			return nil, fmt.Errorf("tool %s: input schema is not valid JSON", d.Name)
		}
		for _, n := range append([]string{d.Name}, d.Aliases...) {
			if _, dup := r.byName[n]; dup {
				return nil, fmt.Errorf("tool name %q registered twice", n)
			}
			r.byName[n] = entry{tool: t, def: d}
		}
		r.list = append(r.list, t)
	}
	slices.SortFunc(r.list, func(a, b Tool) int {
		return strings.Compare(a.Definition().Name, b.Definition().Name)
	})
	return r, nil
}

// Lookup finds a tool by name or alias.
func (r *Registry) Lookup(name string) (Tool, bool) {
	e, ok := r.byName[name]
	return e.tool, ok
}

// Definition returns the definition of a tool by name or alias, as taken
// when the registry was built.
func (r *Registry) Definition(name string) (Definition, bool) {
	e, ok := r.byName[name]
	return e.def, ok
}

// Tools returns the pool in its stable order. The slice must not be changed.
func (r *Registry) Tools() []Tool { return r.list }

// Names returns the canonical names in pool order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.list))
	for i, t := range r.list {
		out[i] = t.Definition().Name
	}
	return out
}
