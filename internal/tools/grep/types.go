package grep

import (
	"strings"
	"sync"
)

// fileTypes maps ripgrep's type names (go, js, py, ...) to their globs.
var fileTypes = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for line := range strings.SplitSeq(rgTypeList, "\n") {
		name, globs, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		m[name] = strings.Split(globs, ", ")
	}
	return m
})

// typeFilter matches file names against the globs of one type. Types
// apply to files only, by name, as in ripgrep.
type typeFilter struct {
	rules []rule
}

func newTypeFilter(name string) (*typeFilter, bool) {
	globs, ok := fileTypes()[name]
	if !ok {
		return nil, false
	}
	tf := &typeFilter{}
	for _, g := range globs {
		kind, arg := classify("**/" + g)
		tf.rules = append(tf.rules, rule{kind: kind, arg: arg})
	}
	return tf, true
}

func (tf *typeFilter) matches(name string) bool {
	for i := range tf.rules {
		if tf.rules[i].matches(name, name) {
			return true
		}
	}
	return false
}
