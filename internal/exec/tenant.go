package exec

import (
	"context"
	"sync"

	"github.com/toold/toold/internal/session"
)

// owners remembers the tenant of every session this replica has looked
// at. A session's tenant never changes, so an entry of any age is right,
// and a request on a known session is checked without a store round trip.
type owners struct {
	mu  sync.Mutex
	m   map[string]string
	max int
}

func newOwners(max int) *owners { return &owners{m: make(map[string]string), max: max} }

func (o *owners) get(id string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t, ok := o.m[id]
	return t, ok
}

func (o *owners) put(id, tenant string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.m[id]; !ok && len(o.m) >= o.max {
		// Any entry will do: a miss costs one read, once.
		for k := range o.m {
			delete(o.m, k)
			break
		}
	}
	o.m[id] = tenant
}

// checkOwner refuses a request on a session of another tenant (the
// context's, see session.WithTenant) with the error of a missing session,
// before anything of the session is read, claimed or changed.
func (e *Engine) checkOwner(ctx context.Context, sessionID string) error {
	if t, ok := e.owners.get(sessionID); ok {
		return session.CheckTenant(ctx, sessionID, t)
	}
	sess, err := e.cfg.Store.GetSession(ctx, sessionID)
	if err != nil {
		return err
	}
	e.owners.put(sessionID, sess.Tenant)
	return session.CheckOwner(ctx, sess)
}
