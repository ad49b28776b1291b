// Package strictjson checks JSON that configuration is read from (settings
// files) for what encoding/json would accept and silently repair.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Check refuses what a lenient parser would silently repair:
// duplicate keys at any depth (encoding/json keeps the last one, so a
// second "deny" could hide the first) and data after the top-level value.
func Check(data []byte) error {
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
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.keys != nil {
			if top.expectKey {
				k, _ := tok.(string)
				if top.keys[k] {
					return fmt.Errorf("invalid JSON: duplicate key %q", k)
				}
				top.keys[k] = true
				top.expectKey = false
				continue
			}
			top.expectKey = true // tok is this key's value, or starts it
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

// String decodes a JSON string; anything else (a number, null, an object)
// is refused rather than converted.
func String(raw json.RawMessage) (string, error) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", errors.New("must be a string")
	}
	return s, nil
}

// Strings decodes an array of strings; an element that is not a string is
// named by its index.
func Strings(raw json.RawMessage) ([]string, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return nil, errors.New("must be an array of strings")
	}
	out := make([]string, len(items))
	for i, it := range items {
		s, err := String(it)
		if err != nil {
			return nil, fmt.Errorf("[%d] %w", i, err)
		}
		out[i] = s
	}
	return out, nil
}
