package exec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// decodeStrict decodes a JSON object the way a second parser in another
// language would see it too: invalid UTF-8, duplicate keys at any depth and
// data after the object are refused instead of being silently repaired
// (encoding/json would keep the last duplicate and replace bad bytes).
func decodeStrict(b []byte) (map[string]any, error) {
	if !utf8.Valid(b) {
		return nil, errors.New("input is not valid UTF-8")
	}
	if err := checkDuplicateKeys(b); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("input is not valid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("input has data after the JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("input must be a JSON object")
	}
	return m, nil
}

func checkDuplicateKeys(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	// One frame per open container: the keys seen so far for objects, nil
	// for arrays. expectKey says the next string token of an object is a key.
	type frame struct {
		keys      map[string]struct{}
		expectKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("input is not valid JSON: %w", err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, &frame{keys: map[string]struct{}{}, expectKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].keys != nil {
					stack[len(stack)-1].expectKey = true
				}
			}
			continue
		}
		if top == nil || top.keys == nil {
			continue
		}
		if top.expectKey {
			k := tok.(string)
			if _, dup := top.keys[k]; dup {
				return fmt.Errorf("input has the key %q twice in one object", k)
			}
			top.keys[k] = struct{}{}
			top.expectKey = false
		} else {
			top.expectKey = true
		}
	}
}
