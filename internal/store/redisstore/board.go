package redisstore

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toold/toold/internal/store"
)

// The board (store.Board) keeps, per session, the feed stream and the
// listed asks under the session's hash tag, and per tenant an index of its
// sessions:
//
//	<prefix>{s:<id>}:feed      stream, entry id 0-<seq>, field d (data)
//	<prefix>{s:<id>}:asks      hash, request id -> data
//	<prefix>{s:<id>}:askexp    sorted set of request ids, score = when
//	                           the request stops being listed (ms)
//	<prefix>{t:<hex tenant>}:sessions  sorted set of session ids, score =
//	                           creation time (ms)
//
// The tenant index has no TTL: a session lives as long as it is used, and
// nothing but its creation touches the index. It is bounded instead: it
// keeps the newest store.MaxTenantSessions ids, and ListSessions drops the
// ids whose session has gone.

func (k keys) board() (feed, asks, askexp string) {
	return k.base + "feed", k.base + "asks", k.base + "askexp"
}

func (s *Store) tenantIndex(tenant string) string {
	return s.opts.KeyPrefix + "{t:" + hex.EncodeToString([]byte(tenant)) + "}:sessions"
}

// createIndexed runs scriptCreate and lists the session in its tenant's
// index, in one pipeline (one round trip; on a Cluster the index is on
// another node, so the two cannot be one script). The index comes first:
// an id listed whose creation then failed is dropped by the next
// ListSessions, while a session created but never listed would stay off
// the console.
func (s *Store) createIndexed(ctx context.Context, sess *store.Session, k keys, data []byte) (any, error) {
	key := s.tenantIndex(sess.Tenant)
	var create *redis.Cmd
	var index []redis.Cmder
	_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		index = append(index,
			p.ZAdd(ctx, key, redis.Z{Score: float64(sess.CreatedAt.UnixMilli()), Member: sess.ID}),
			p.ZRemRangeByRank(ctx, key, 0, -store.MaxTenantSessions-1))
		create = scriptCreate.EvalSha(ctx, p, k.all(), s.ttlMs, data, k.base)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) && !redis.HasErrorPrefix(create.Err(), "NOSCRIPT") {
		for _, c := range index {
			if c.Err() != nil {
				return nil, unavailable(c.Err())
			}
		}
		if create.Err() != nil && !errors.Is(create.Err(), redis.Nil) {
			return nil, unavailable(create.Err())
		}
	}
	if redis.HasErrorPrefix(create.Err(), "NOSCRIPT") {
		// A Redis whose script cache was emptied (a failover): EVAL
		// loads it again.
		return s.run(ctx, scriptCreate, sess.ID, k, data, k.base)
	}
	v, err := create.Result()
	if err != nil {
		return nil, unavailable(err)
	}
	return v, nil
}

func (s *Store) ListSessions(ctx context.Context, tenant string, limit int) ([]*store.Session, error) {
	if limit <= 0 || limit > store.MaxTenantSessions {
		limit = store.MaxTenantSessions
	}
	key := s.tenantIndex(tenant)
	ids, err := s.c.ZRevRange(ctx, key, 0, int64(limit)-1).Result()
	if err != nil {
		return nil, unavailable(err)
	}
	// Plain GETs, not the refreshing read: looking at a session on the
	// console does not keep it alive.
	cmds := make([]*redis.StringCmd, len(ids))
	_, err = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			k, err := s.keys(id)
			if err != nil {
				return err
			}
			cmds[i] = p.Get(ctx, k.session)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, unavailable(err)
	}
	var out []*store.Session
	var gone []any
	for i, c := range cmds {
		data, err := c.Bytes()
		if errors.Is(err, redis.Nil) {
			gone = append(gone, ids[i])
			continue
		}
		if err != nil {
			return nil, unavailable(err)
		}
		sess, err := decodeSession(data)
		if err != nil {
			return nil, unavailable(fmt.Errorf("session %s: %w", ids[i], err))
		}
		if sess.Tenant != tenant {
			// Only a corrupt index could say so; never show it.
			continue
		}
		out = append(out, sess)
	}
	if len(gone) > 0 {
		if err := s.c.ZRem(ctx, key, gone...).Err(); err != nil {
			return nil, unavailable(err)
		}
	}
	return out, nil
}

func (s *Store) AppendFeed(ctx context.Context, id string, data ...[]byte) error {
	k, err := s.keys(id)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return nil
	}
	feed, _, _ := k.board()
	args := []any{s.ttlMs, store.MaxFeedEntries}
	for _, d := range data {
		args = append(args, d)
	}
	return s.runBoard(ctx, scriptAppendFeed, id, []string{k.session, feed}, args...)
}

// runBoard runs a board script whose nil reply means the session is absent.
func (s *Store) runBoard(ctx context.Context, sc *redis.Script, id string, ks []string, args ...any) error {
	err := sc.Run(ctx, s.c, ks, args...).Err()
	switch {
	case errors.Is(err, redis.Nil):
		return notFound(id)
	case err != nil:
		return unavailable(err)
	}
	return nil
}

// ReadFeed reads the stream; when there is nothing new it blocks on it with
// XREAD (a pool connection is held for the wait).
func (s *Store) ReadFeed(ctx context.Context, id string, after int64, wait time.Duration) ([]store.FeedEntry, error) {
	k, err := s.keys(id)
	if err != nil {
		return nil, err
	}
	if after < 0 {
		after = 0
	}
	feed, _, _ := k.board()
	start := "(0-" + strconv.FormatInt(after, 10)
	msgs, err := s.c.XRangeN(ctx, feed, start, "+", store.MaxFeedEntries).Result()
	if err != nil {
		return nil, unavailable(err)
	}
	if len(msgs) == 0 && wait > 0 {
		streams, err := s.c.XRead(ctx, &redis.XReadArgs{Streams: []string{feed, "0-" + strconv.FormatInt(after, 10)}, Count: store.MaxFeedEntries, Block: wait}).Result()
		switch {
		case errors.Is(err, redis.Nil):
			return nil, nil
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, unavailable(err)
		}
		for _, st := range streams {
			msgs = append(msgs, st.Messages...)
		}
	}
	out := make([]store.FeedEntry, 0, len(msgs))
	for _, m := range msgs {
		seq, ok := feedSeq(m.ID)
		d, isStr := m.Values["d"].(string)
		if !ok || !isStr {
			return nil, unexpected(id, m.ID)
		}
		out = append(out, store.FeedEntry{Seq: seq, Data: []byte(d)})
	}
	return out, nil
}

// feedSeq reads the seq of a feed entry id "0-<seq>".
func feedSeq(id string) (int64, bool) {
	if len(id) < 3 || id[:2] != "0-" {
		return 0, false
	}
	n, err := strconv.ParseInt(id[2:], 10, 64)
	return n, err == nil
}

func (s *Store) PutAsk(ctx context.Context, id, requestID string, data []byte, ttl time.Duration) error {
	k, err := s.keys(id)
	if err != nil {
		return err
	}
	_, asks, askexp := k.board()
	until := time.Now().Add(ttl).UnixMilli()
	return s.runBoard(ctx, scriptPutAsk, id, []string{k.session, asks, askexp}, s.ttlMs, requestID, data, until)
}

func (s *Store) DropAsk(ctx context.Context, id, requestID string) error {
	k, err := s.keys(id)
	if err != nil {
		return err
	}
	_, asks, askexp := k.board()
	_, err = s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HDel(ctx, asks, requestID)
		p.ZRem(ctx, askexp, requestID)
		return nil
	})
	if err != nil {
		return unavailable(err)
	}
	return nil
}

func (s *Store) ListAsks(ctx context.Context, id string) ([]store.PendingAsk, error) {
	k, err := s.keys(id)
	if err != nil {
		return nil, err
	}
	_, asks, askexp := k.board()
	v, err := scriptListAsks.Run(ctx, s.c, []string{k.session, asks, askexp}, s.ttlMs, time.Now().UnixMilli()).Slice()
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, unavailable(err)
	}
	out := make([]store.PendingAsk, 0, len(v)/2)
	for i := 0; i+1 < len(v); i += 2 {
		rid, ok1 := v[i].(string)
		d, ok2 := v[i+1].(string)
		if !ok1 || !ok2 {
			return nil, unexpected(id, v[i])
		}
		out = append(out, store.PendingAsk{RequestID: rid, Data: []byte(d)})
	}
	return out, nil
}
