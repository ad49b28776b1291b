package notebookedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// object is a JSON object kept as its members in file order, each value
// as its raw bytes: a notebook written back this way loses no field this
// tool does not know, and keeps its key order (so the diff shows the edit
// and nothing else).
type object struct {
	members []member
}

type member struct {
	key string
	val json.RawMessage
}

func decodeObject(data []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	o := &object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		o.members = append(o.members, member{key: key, val: val})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the end of the JSON object")
	}
	return o, nil
}

// get returns the value of key; with duplicate keys, the last one, as
// JSON readers commonly do.
func (o *object) get(key string) (json.RawMessage, bool) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return o.members[i].val, true
		}
	}
	return nil, false
}

// set replaces the value of key where it stands, or adds the key before
// the first key that sorts after it: nbformat writes keys sorted, and a
// new key lands where Jupyter would put it.
func (o *object) set(key string, val json.RawMessage) {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			o.members[i].val = val
			return
		}
	}
	at := len(o.members)
	for i, m := range o.members {
		if m.key > key {
			at = i
			break
		}
	}
	o.members = append(o.members, member{})
	copy(o.members[at+1:], o.members[at:])
	o.members[at] = member{key: key, val: val}
}

func (o *object) del(key string) {
	kept := o.members[:0]
	for _, m := range o.members {
		if m.key != key {
			kept = append(kept, m)
		}
	}
	o.members = kept
}

func (o *object) string(key string) string {
	raw, ok := o.get(key)
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// appendJSON appends the object, compact apart from what the raw values
// hold.
func (o *object) appendJSON(b []byte) []byte {
	b = append(b, '{')
	for i, m := range o.members {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, marshal(m.key)...)
		b = append(b, ':')
		b = append(b, m.val...)
	}
	return append(b, '}')
}

// marshal encodes v without HTML escaping: notebooks hold code, and
// Jupyter writes "<" as it is.
func marshal(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("notebookedit: encoding %T: %v", v, err))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
