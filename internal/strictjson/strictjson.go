// Package strictjson checks JSON for what encoding/json would accept and
// silently repair: the settings files that configuration is read from, and
// the tool inputs that clients send as JSON text. It is the one place where
// JSON is checked strictly, and where its nesting is bounded.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Check refuses what a lenient parser would silently repair:
// duplicate keys at any depth (encoding/json keeps the last one, so a
// second "deny" could hide the first) and data after the top-level value,
// and documents over the default Limits.
func Check(data []byte) error {
	if err := CheckLimits(data, Limits{}); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	_, values, err := decode(data)
	if err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	switch {
	case values == 0:
		return errors.New("invalid JSON: empty document")
	case values > 1:
		return errors.New("invalid JSON: data after the top-level value")
	}
	return nil
}

// DecodeObject decodes a JSON object the way a second parser in another
// language would see it too: invalid UTF-8, duplicate keys at any depth,
// data after the object and a document over l are refused
// instead of being silently repaired (encoding/json would keep the last
// duplicate and replace bad bytes). Numbers are json.Number. A *LimitError
// is returned as it is, so that callers can tell a document over a limit
// from a malformed one.
func DecodeObject(data []byte, l Limits) (map[string]any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("not valid UTF-8")
	}
	// Before the decoder, which spends memory per level and per value.
	if err := CheckLimits(data, l); err != nil {
		return nil, err
	}
	v, values, err := decode(data)
	switch {
	case err != nil:
		return nil, fmt.Errorf("not valid JSON: %w", err)
	case values > 1:
		return nil, errors.New("data after the JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("must be a JSON object")
	}
	return m, nil
}

// decode builds the first top-level value from the token stream, refusing
// a key that appears twice in one object, and counts the top-level values.
// One pass: the strings the tokenizer returns become the value's strings,
// so a large document is not decoded twice (once to check it, once to
// build it). The depth check before bounds the stack.
func decode(data []byte) (root any, values int, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// One frame per open container. An object's frame holds the key whose
	// value comes next; expectKey says the next token is a key.
	type frame struct {
		obj       map[string]any // nil for arrays
		arr       []any
		key       string
		expectKey bool
	}
	var stack []frame
	put := func(v any) {
		if len(stack) == 0 {
			if values++; values == 1 {
				root = v
			}
			return
		}
		top := &stack[len(stack)-1]
		if top.obj != nil {
			top.obj[top.key] = v
			top.expectKey = true
		} else {
			top.arr = append(top.arr, v)
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if len(stack) > 0 {
				return nil, values, io.ErrUnexpectedEOF
			}
			return root, values, nil
		}
		if err != nil {
			return nil, values, err
		}
		if n := len(stack); n > 0 && stack[n-1].obj != nil && stack[n-1].expectKey {
			if _, ok := tok.(json.Delim); !ok {
				k := tok.(string)
				if _, dup := stack[n-1].obj[k]; dup {
					return nil, values, fmt.Errorf("duplicate key %q in one object", k)
				}
				stack[n-1].key, stack[n-1].expectKey = k, false
				continue
			}
		}
		d, ok := tok.(json.Delim)
		if !ok {
			put(tok)
			continue
		}
		switch d {
		case '{':
			stack = append(stack, frame{obj: map[string]any{}, expectKey: true})
		case '[':
			stack = append(stack, frame{arr: []any{}})
		default:
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.obj != nil {
				put(f.obj)
			} else {
				put(f.arr)
			}
		}
	}
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
