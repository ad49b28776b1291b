package redisstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
)

var _ store.Journal = (*Store)(nil)

// The call journal (store.Journal) in Redis: keys in keys.go, scripts in
// scripts.go. Claiming a batch reads the session in the same script, so
// starting a batch is one round trip; finishing a call (events, result,
// file stamps, cwd) is another; a repeatable call is one CommitCall. These
// three go through the store's autoPipe, so that concurrent calls share
// round trips.

func (s *Store) BeginCalls(ctx context.Context, sessionID, owner string, claims []store.Claim, t store.CallTimes) (*store.Session, []store.ClaimResult, error) {
	k, err := s.keys(sessionID)
	if err != nil {
		return nil, nil, err
	}
	ks := k.all()
	args := []any{s.ttlMs, owner, ms(t.Lease), ms(t.Keep)}
	for _, c := range claims {
		rec, _ := k.call(c.ToolUseID)
		ks = append(ks, rec)
		args = append(args, c.ToolUseID, c.Fingerprint)
	}
	v, err := s.pipe.run(ctx, scriptBeginCalls, ks, args...).Slice()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, nil, notFound(sessionID)
	case err != nil:
		return nil, nil, unavailable(err)
	}
	if len(v) == 2 && v[0] == int64(0) {
		i, _ := v[1].(int64)
		if i < 1 || int(i) > len(claims) {
			return nil, nil, unexpected(sessionID, v)
		}
		return nil, nil, fmt.Errorf("tool_use_id %s: %w", claims[i-1].ToolUseID, store.ErrCallConflict)
	}
	if len(v) != 2+len(claims) || v[0] != int64(1) {
		return nil, nil, unexpected(sessionID, v)
	}
	str, ok := v[1].(string)
	if !ok {
		return nil, nil, unexpected(sessionID, v)
	}
	sess, err := decodeSession([]byte(str))
	if err != nil {
		return nil, nil, unavailable(fmt.Errorf("session %s: %w", sessionID, err))
	}
	res := make([]store.ClaimResult, len(claims))
	for i := range claims {
		switch v[2+i] {
		case int64(0):
			res[i].Status = store.CallAbsent
		case int64(1):
			res[i].Status = store.CallRunning
		case int64(2):
			res[i].Status = store.CallDone
		default:
			return nil, nil, unexpected(sessionID, v)
		}
	}
	return sess, res, nil
}

func (s *Store) AppendEvents(ctx context.Context, ref store.CallRef, owner string, evs []store.CallEvent) error {
	k, err := s.keys(ref.SessionID)
	if err != nil {
		return err
	}
	rec, stream := k.call(ref.ToolUseID)
	args := eventArgs([]any{owner, store.MaxCallEvents}, evs)
	n, err := scriptAppendEvents.Run(ctx, s.c, []string{rec, stream}, args...).Int64()
	if err != nil {
		return unavailable(err)
	}
	if n != 1 {
		return fmt.Errorf("call %s: %w", ref.ToolUseID, store.ErrNotOwner)
	}
	return nil
}

func eventArgs(args []any, evs []store.CallEvent) []any {
	for _, e := range evs {
		f := "0"
		if e.Final {
			f = "1"
		}
		data := e.Bytes()
		if data == nil && e.Value != nil {
			continue // it cannot be encoded: left out of the journal
		}
		args = append(args, e.Seq, data, f)
	}
	return args
}

func (s *Store) FinishCall(ctx context.Context, ref store.CallRef, owner string, evs []store.CallEvent, fx store.Effects, t store.CallTimes) error {
	k, err := s.keys(ref.SessionID)
	if err != nil {
		return err
	}
	rec, stream := k.call(ref.ToolUseID)
	args := []any{s.ttlMs, owner, store.MaxCallEvents, ms(t.Keep), ref.ToolUseID, fx.Cwd, fieldCount(fx)}
	args, err = stampArgs(args, fx)
	if err != nil {
		return err
	}
	args = eventArgs(args, evs)
	v, err := s.pipe.run(ctx, scriptFinishCall, append(k.all(), rec, stream), args...).Int64()
	switch {
	case errors.Is(err, redis.Nil):
		return notFound(ref.SessionID)
	case err != nil:
		return unavailable(err)
	case v != 1:
		return fmt.Errorf("call %s: %w", ref.ToolUseID, store.ErrNotOwner)
	}
	return nil
}

func (s *Store) CommitCall(ctx context.Context, ref store.CallRef, fingerprint, etag string, evs []store.CallEvent, fx store.Effects, t store.CallTimes) (store.CommitResult, error) {
	k, err := s.keys(ref.SessionID)
	if err != nil {
		return 0, err
	}
	rec, stream := k.call(ref.ToolUseID)
	args := []any{s.ttlMs, store.MaxCallEvents, ms(t.Keep), ref.ToolUseID, fingerprint, etag, fx.Cwd, fieldCount(fx)}
	args, err = stampArgs(args, fx)
	if err != nil {
		return 0, err
	}
	args = eventArgs(args, evs)
	v, err := s.pipe.run(ctx, scriptCommitCall, append(k.all(), rec, stream), args...).Int64()
	switch {
	case errors.Is(err, redis.Nil):
		return 0, notFound(ref.SessionID)
	case err != nil:
		return 0, unavailable(err)
	}
	switch v {
	case 0:
		return store.Committed, nil
	case 1:
		return store.CommitStale, nil
	case 2:
		return store.CommitExists, nil
	case 3:
		return 0, fmt.Errorf("tool_use_id %s: %w", ref.ToolUseID, store.ErrCallConflict)
	}
	return 0, unexpected(ref.SessionID, v)
}

// stampArgs appends the (field, value) pairs of the stamps hash that the
// effects set: file stamps and blobs. The count must precede them:
// fieldCount.
func stampArgs(args []any, fx store.Effects) ([]any, error) {
	for p, st := range fx.Reads {
		enc, err := encodeStamp(st)
		if err != nil {
			return nil, fmt.Errorf("redis: encode stamp: %w", err)
		}
		args = append(args, p, enc)
	}
	for k, b := range fx.Blobs {
		args = append(args, blobField(k), b)
	}
	return args, nil
}

func fieldCount(fx store.Effects) int { return len(fx.Reads) + len(fx.Blobs) }

func (s *Store) ReleaseCall(ctx context.Context, ref store.CallRef, owner string) error {
	k, err := s.keys(ref.SessionID)
	if err != nil {
		return err
	}
	rec, stream := k.call(ref.ToolUseID)
	if err := scriptReleaseCall.Run(ctx, s.c, []string{rec, stream, k.calls}, owner, ref.ToolUseID).Err(); err != nil {
		return unavailable(err)
	}
	return nil
}

// RenewLeases pipelines one small script per call: one round trip for all
// (on a Cluster, one per node).
func (s *Store) RenewLeases(ctx context.Context, owner string, refs []store.CallRef, lease time.Duration) error {
	if len(refs) == 0 {
		return nil
	}
	_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, r := range refs {
			k, err := s.keys(r.SessionID)
			if err != nil {
				continue
			}
			rec, _ := k.call(r.ToolUseID)
			scriptRenewLease.EvalSha(ctx, p, []string{rec}, owner, ms(lease))
		}
		return nil
	})
	if err != nil && isNoScript(err) {
		if err := s.loadScripts(ctx); err != nil {
			return err
		}
		return s.RenewLeases(ctx, owner, refs, lease)
	}
	if err != nil {
		return unavailable(err)
	}
	return nil
}

func isNoScript(err error) bool { return strings.HasPrefix(err.Error(), "NOSCRIPT") }

// ReadEvents reads with one script; when there is nothing new and the call
// runs, it blocks on the stream with XREAD (a pool connection is held for
// the wait) and reads again.
func (s *Store) ReadEvents(ctx context.Context, ref store.CallRef, after int64, wait time.Duration) ([]store.CallEvent, store.CallStatus, bool, error) {
	k, err := s.keys(ref.SessionID)
	if err != nil {
		return nil, store.CallAbsent, false, err
	}
	rec, stream := k.call(ref.ToolUseID)
	evs, st, expired, err := s.readEvents(ctx, ref.SessionID, []string{k.session, rec, stream}, after)
	if err != nil || len(evs) > 0 || st != store.CallRunning || expired || wait <= 0 {
		return evs, st, expired, err
	}
	err = s.c.XRead(ctx, &redis.XReadArgs{Streams: []string{stream, "0-" + strconv.FormatInt(after, 10)}, Count: 1, Block: wait}).Err()
	if err != nil && !errors.Is(err, redis.Nil) {
		if ctx.Err() != nil {
			return nil, st, false, ctx.Err()
		}
		return nil, st, false, unavailable(err)
	}
	return s.readEvents(ctx, ref.SessionID, []string{k.session, rec, stream}, after)
}

func (s *Store) readEvents(ctx context.Context, sessionID string, ks []string, after int64) ([]store.CallEvent, store.CallStatus, bool, error) {
	v, err := scriptReadEvents.Run(ctx, s.c, ks, after).Slice()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, store.CallAbsent, false, notFound(sessionID)
	case err != nil:
		return nil, store.CallAbsent, false, unavailable(err)
	}
	if len(v) != 4 {
		return nil, store.CallAbsent, false, unexpected(sessionID, v)
	}
	st := store.CallAbsent
	switch v[0] {
	case int64(1):
		st = store.CallRunning
	case int64(2):
		st = store.CallDone
	}
	expired := v[1] == int64(1)
	if inline, _ := v[3].([]any); len(inline) > 0 {
		evs, ok := decodeInline(inline, after)
		if !ok {
			return nil, store.CallAbsent, false, unexpected(sessionID, v)
		}
		return evs, st, expired, nil
	}
	entries, _ := v[2].([]any)
	var evs []store.CallEvent
	for _, e := range entries {
		var ok bool
		if evs, ok = decodeEntry(evs, e, after); !ok {
			return nil, store.CallAbsent, false, unexpected(sessionID, e)
		}
	}
	// Trimming drops whole entries; what is left of one older than the
	// cap is not shown either, as the memory store would not have it.
	if n := len(evs); n > 0 {
		floor := evs[n-1].Seq - store.MaxCallEvents
		i := 0
		for i < n && evs[i].Seq <= floor {
			i++
		}
		evs = evs[i:]
	}
	return evs, st, expired, nil
}

// decodeInline reads the events CommitCall stored in a record: fields
// e:<seq> -> data, and f -> the final seq.
func decodeInline(fields []any, after int64) ([]store.CallEvent, bool) {
	var evs []store.CallEvent
	final := int64(-1)
	for i := 0; i+1 < len(fields); i += 2 {
		name, _ := fields[i].(string)
		val, _ := fields[i+1].(string)
		switch {
		case name == "f":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return nil, false
			}
			final = n
		case strings.HasPrefix(name, "e:"):
			seq, err := strconv.ParseInt(name[2:], 10, 64)
			if err != nil {
				return nil, false
			}
			if seq > after {
				evs = append(evs, store.CallEvent{Seq: seq, Data: []byte(val)})
			}
		}
	}
	slices.SortFunc(evs, func(a, b store.CallEvent) int { return cmp.Compare(a.Seq, b.Seq) })
	for i := range evs {
		evs[i].Final = evs[i].Seq == final
	}
	return evs, true
}

// decodeEntry appends the events of one XRANGE entry ({"0-<last seq>",
// {seq, data, ..., ["f", "1"]}}) with a seq above after: an entry holds
// every event of one flush, and XRANGE returns it whole when its last
// event is new.
func decodeEntry(evs []store.CallEvent, e any, after int64) ([]store.CallEvent, bool) {
	pair, ok := e.([]any)
	if !ok || len(pair) != 2 {
		return evs, false
	}
	fields, ok := pair[1].([]any)
	if !ok || len(fields)%2 != 0 {
		return evs, false
	}
	final := false
	start := len(evs)
	for i := 0; i < len(fields); i += 2 {
		name, _ := fields[i].(string)
		val, _ := fields[i+1].(string)
		if name == "f" {
			final = val == "1"
			continue
		}
		seq, err := strconv.ParseInt(name, 10, 64)
		if err != nil {
			return evs, false
		}
		if seq > after {
			evs = append(evs, store.CallEvent{Seq: seq, Data: []byte(val)})
		}
	}
	if final && len(evs) > start {
		evs[len(evs)-1].Final = true
	}
	return evs, true
}

func ms(d time.Duration) int64 {
	if n := d.Milliseconds(); n > 0 {
		return n
	}
	return 1
}
