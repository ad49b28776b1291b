package redisstore

import (
	"time"

	"github.com/toold/toold/internal/store"
)

// Offers: on Redis, replicas share permission requests, Cancel requests
// and rate limits, and readiness follows Redis's reachability.
func (s *Store) Offers() store.Offers {
	return store.Offers{
		Pending: func(ttl time.Duration) store.PendingAsks { return s.Pending(ttl) },
		Cancels: s.Cancels(),
		Scripts: s.c,
		Pinger:  s,
	}
}

var (
	_ store.PendingAsks   = (*Pending)(nil)
	_ store.CancelChannel = (*Cancels)(nil)
	_ store.Pinger        = (*Store)(nil)
)
