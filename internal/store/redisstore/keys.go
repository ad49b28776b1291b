package redisstore

import (
	"fmt"

	"github.com/toold/toold/internal/store"
)

// Key layout. All keys of a session share the Cluster hash tag {s:<id>}, so
// they live in one slot and a script may use them together:
//
//	<prefix>{s:<id>}:session   string, the session as JSON (codec.go)
//	<prefix>{s:<id>}:stamps    hash, path -> file stamp JSON; also the
//	                           session's blobs, under "\x00blob:<key>"
//	                           (no path starts with NUL)
//	<prefix>{s:<id>}:denials   sorted set, score = time in microseconds:
//	                           the permission requests people refused
//	<prefix>{s:<id>}:cdenials  sorted set, the same for the denials of
//	                           auto mode's classifier; it expires on its
//	                           own once every entry has left the window
//	<prefix>{s:<id>}:calls     sorted set of tool_use_ids, score = when
//	                           their record expires (ms); lets DeleteSession
//	                           find the call records
//	<prefix>{s:<id>}:deleted   hash, the mark DeleteSession leaves for
//	                           store.DeletedKeep: s (the session JSON),
//	                           by (the token of the delete that made it)
//	<prefix>{s:<id>}:call:<tool_use_id>  hash, a call's journal record:
//	                           fp, owner, st (r running, d done), lease (ms),
//	                           seq (the last stored event)
//	<prefix>{s:<id>}:ev:<tool_use_id>    stream of the call's events, entry
//	                           id 0-<seq>, fields d (data) and f (final)
//	<prefix>{s:<id>}:notes     stream of the session's notifications, entry
//	                           id 0-<seq>, field d (JSON); the seq counter
//	                           is the field "\x00noteseq" of stamps
//
// The prefix may not contain braces, or the hash tag would be taken from it.
type keys struct {
	base                            string
	session, stamps, denials, calls string
	deleted, classifierDenials      string
}

// maxIDLen bounds the key length; session ids are much shorter.
const maxIDLen = 128

func (s *Store) keys(id string) (keys, error) {
	if !validID(id) {
		// The caller validates ids; this only makes sure that nothing
		// outside [A-Za-z0-9_-] ever reaches a key (no brace to move the
		// hash tag, no glob character, no separator).
		return keys{}, fmt.Errorf("session %q: invalid id: %w", id, store.ErrNotFound)
	}
	base := s.opts.KeyPrefix + "{s:" + id + "}:"
	return keys{
		base:    base,
		session: base + "session",
		stamps:  base + "stamps",
		denials: base + "denials",
		calls:   base + "calls",
		deleted: base + "deleted",

		classifierDenials: base + "cdenials",
	}, nil
}

// denialsOf returns the sorted set of a kind of denials.
func (k keys) denialsOf(kind store.DenialKind) (string, error) {
	switch kind {
	case store.PersonDenials:
		return k.denials, nil
	case store.ClassifierDenials:
		return k.classifierDenials, nil
	}
	return "", store.CheckDenialKind(kind)
}

func (k keys) all() []string { return []string{k.session, k.stamps, k.denials, k.calls} }

// call returns the record and stream keys of one call. A tool_use_id may
// hold any bytes: the hash tag is taken from the first braces, which are
// the session's.
func (k keys) call(toolUseID string) (record, stream string) {
	return k.base + "call:" + toolUseID, k.base + "ev:" + toolUseID
}

func validID(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// blobField is the field of a blob in the stamps hash.
func blobField(key string) string { return "\x00blob:" + key }
