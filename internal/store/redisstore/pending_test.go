package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/redistest"
)

const rid = "perm_0123456789abcdef01234567"

// TestPendingAcrossStores opens a request through one store and answers it
// through another (its own client), as two replicas would.
func TestPendingAcrossStores(t *testing.T) {
	ctx := context.Background()
	addr := redistest.Start(t)
	a := New(newClient(t, addr), Options{KeyPrefix: prefix(t)}).Pending(time.Minute)
	b := New(newClient(t, addr), Options{KeyPrefix: prefix(t)}).Pending(time.Minute)

	answers, closeFn, err := a.Open(ctx, "s1", rid)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	want := Answer{Allow: true, ForSession: true, Message: "go ahead", Completion: json.RawMessage(`{"approved":true}`)}
	if err := b.Resolve(ctx, "s1", rid, want); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-answers:
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("answer = %+v, want %+v", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no answer arrived")
	}
	if err := b.Resolve(ctx, "s1", rid, want); !errors.Is(err, ErrNoPending) {
		t.Fatalf("second Resolve: %v, want ErrNoPending", err)
	}
	if err := b.Resolve(ctx, "s1", "perm_ffffffffffffffffffffffff", want); !errors.Is(err, ErrNoPending) {
		t.Fatalf("unknown request: %v, want ErrNoPending", err)
	}
	// Another session's request of the same id is another request.
	if err := b.Resolve(ctx, "s2", rid, want); !errors.Is(err, ErrNoPending) {
		t.Fatalf("other session: %v, want ErrNoPending", err)
	}
}

func TestPendingClosed(t *testing.T) {
	ctx := context.Background()
	addr := redistest.Start(t)
	a := New(newClient(t, addr), Options{KeyPrefix: prefix(t)}).Pending(time.Minute)
	b := New(newClient(t, addr), Options{KeyPrefix: prefix(t)}).Pending(time.Minute)
	answers, closeFn, err := a.Open(ctx, "s1", rid)
	if err != nil {
		t.Fatal(err)
	}
	closeFn()
	if err := b.Resolve(ctx, "s1", rid, Answer{Allow: true}); !errors.Is(err, ErrNoPending) {
		t.Fatalf("Resolve after close: %v, want ErrNoPending", err)
	}
	select {
	case got, ok := <-answers:
		if ok {
			t.Fatalf("answer after close: %+v", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("answers not closed after close()")
	}
}

func TestPendingBadIDs(t *testing.T) {
	ctx := context.Background()
	p := New(newClient(t, redistest.Start(t)), Options{KeyPrefix: prefix(t)}).Pending(time.Minute)
	for _, ids := range [][2]string{
		{"s1", "perm_x"},
		{"s1", "dlg_x"},
		{"s1", "dlgx0123456789abcdef01234567"},
		{"s1", "perm_0123456789ABCDEF01234567"},
		{"s1", "perm_0123456789abcdef012345678"},
		{"s1", "*"},
		{"s1", ""},
		{"", rid},
		{"s{1}", rid},
		{"s:1", rid},
	} {
		if err := p.Resolve(ctx, ids[0], ids[1], Answer{}); !errors.Is(err, ErrNoPending) {
			t.Errorf("Resolve(%q, %q) = %v, want ErrNoPending", ids[0], ids[1], err)
		}
		if _, _, err := p.Open(ctx, ids[0], ids[1]); err == nil {
			t.Errorf("Open(%q, %q) succeeded", ids[0], ids[1])
		}
	}
}

func TestPendingUnavailable(t *testing.T) {
	srv := redistest.StartServer(t)
	p := New(newClient(t, srv.Addr), Options{KeyPrefix: prefix(t)}).Pending(time.Minute)
	srv.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := p.Open(ctx, "s1", rid); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Open: %v, want ErrUnavailable", err)
	}
	if err := p.Resolve(ctx, "s1", rid, Answer{Allow: true}); !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("Resolve: %v, want ErrUnavailable", err)
	}
}
