package redisstore

import "github.com/redis/go-redis/v9"

// Client is the store's Redis client, for other state that belongs in the
// same Redis (the shared rate limiter). Closing the store closes it when
// Open created it, so users must stop before the store is closed.
func (s *Store) Client() redis.UniversalClient { return s.c }
