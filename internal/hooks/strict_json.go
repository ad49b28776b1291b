package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// checkStrictJSON refuses what encoding/json would silently repair: a
// duplicate key at any depth (the last one wins, so a second "PreToolUse"
// would hide the hooks of the first) and data after the top-level value.
func checkStrictJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		keys      map[string]bool // nil for arrays
		expectKey bool
	}
	var stack []*frame
	values := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("invalid JSON: %w", err)
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if len(stack) == 0 {
			if values++; values > 1 {
				return errors.New("invalid JSON: data after the top-level value")
			}
		}
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			top := stack[n-1]
			if top.expectKey {
				k, _ := tok.(string)
				if top.keys[k] {
					return fmt.Errorf("invalid JSON: duplicate key %q", k)
				}
				top.keys[k] = true
				top.expectKey = false
				continue
			}
			top.expectKey = true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, expectKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		}
	}
	if values == 0 {
		return errors.New("invalid JSON: empty document")
	}
	return nil
}
