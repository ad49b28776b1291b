package auth_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/toold/toold/internal/auth"
)

func digest(tok string) string {
	s := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(s[:])
}

// clock is a settable time source, so that reload intervals pass without
// sleeping.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	// Write beside and rename, as a Secret update or an editor does; the
	// new inode is seen even within one mtime tick.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func tokenFile(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	writeFile(t, p, strings.Join(lines, "\n")+"\n")
	return p
}

func TestTokenAuthentication(t *testing.T) {
	p := tokenFile(t,
		"# tenant  sha256 of the token",
		"team-a "+digest("secret-a"),
		"",
		"team-b "+digest("secret-b"),
		"team-b "+digest("secret-b-next"),
	)
	a, err := auth.New(auth.Config{Mode: auth.ModeToken, TokenFile: p})
	if err != nil {
		t.Fatal(err)
	}
	dial := serve(t, a, serverOpts{})
	cc := dial()
	for _, c := range []struct {
		name   string
		ctx    context.Context
		tenant string
		code   codes.Code
	}{
		{"tenant a", bearer("secret-a"), "team-a", codes.OK},
		{"tenant b", bearer("secret-b"), "team-b", codes.OK},
		{"tenant b, second token", bearer("secret-b-next"), "team-b", codes.OK},
		{"unknown token", bearer("secret-c"), "", codes.Unauthenticated},
		{"the digest itself is not a token", bearer(digest("secret-a")), "", codes.Unauthenticated},
		{"no metadata", context.Background(), "", codes.Unauthenticated},
		{"basic scheme", metadata.AppendToOutgoingContext(context.Background(), "authorization", "Basic secret-a"), "", codes.Unauthenticated},
		{"empty token", metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "), "", codes.Unauthenticated},
	} {
		t.Run(c.name, func(t *testing.T) {
			tenant, code := callAs(t, c.ctx, cc)
			if tenant != c.tenant || code != c.code {
				t.Errorf("got tenant %q, code %v; want %q, %v", tenant, code, c.tenant, c.code)
			}
		})
	}
}

func TestTokenFileReload(t *testing.T) {
	p := tokenFile(t, "team-a "+digest("old"))
	clk := newClock()
	a, err := auth.New(auth.Config{Mode: auth.ModeToken, TokenFile: p, ReloadInterval: time.Second, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	ctx := func(tok string) context.Context {
		return metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+tok))
	}
	check := func(tok, want string) {
		t.Helper()
		got, err := a.Authenticate(ctx(tok))
		if want == "" && err == nil {
			t.Errorf("token %q accepted as %q", tok, got)
		}
		if want != "" && (err != nil || got != want) {
			t.Errorf("token %q: got %q, %v; want %q", tok, got, err, want)
		}
	}

	writeFile(t, p, "team-a "+digest("new")+"\n")
	// Within the interval the file is not looked at.
	check("old", "team-a")
	clk.Add(2 * time.Second)
	check("new", "team-a")
	check("old", "")

	// A file that does not parse leaves the last good list in force.
	writeFile(t, p, "team-a not-a-digest\n")
	clk.Add(2 * time.Second)
	check("new", "team-a")

	// Removing the last line of a tenant revokes it.
	writeFile(t, p, "# nobody\n")
	clk.Add(2 * time.Second)
	check("new", "")
}

func TestTokenFileErrors(t *testing.T) {
	d := digest("x")
	for _, c := range []struct {
		content, want string
	}{
		{"team-a\n", "line 1: want TENANT SHA256-HEX"},
		{"team-a " + d + " extra\n", "line 1: want TENANT SHA256-HEX"},
		{"# c\nteam/a " + d + "\n", "line 2: tenant"},
		{"team-a " + d[:10] + "\n", "64 hex digits"},
		{"team-a " + strings.Repeat("z", 64) + "\n", "line 1: digest"},
		{"team-a " + d + "\nteam-b " + strings.ToUpper(d) + "\n", `line 2: the same token digest is listed for tenant "team-a"`},
	} {
		p := tokenFile(t, c.content)
		_, err := auth.New(auth.Config{Mode: auth.ModeToken, TokenFile: p})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("file %q: error %v, want it to say %q", c.content, err, c.want)
		}
	}
	if _, err := auth.New(auth.Config{Mode: auth.ModeToken, TokenFile: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Error("a missing token file was accepted")
	}
	if _, err := auth.New(auth.Config{Mode: auth.ModeToken}); err == nil {
		t.Error("token mode without a file was accepted")
	}
}

func TestHealthAndReflectionWithoutCredentials(t *testing.T) {
	p := tokenFile(t, "team-a "+digest("secret-a"))
	a, err := auth.New(auth.Config{Mode: auth.ModeToken, TokenFile: p})
	if err != nil {
		t.Fatal(err)
	}
	for _, public := range []bool{false, true} {
		t.Run(fmt.Sprintf("publicReflection=%v", public), func(t *testing.T) {
			cc := serve(t, a, serverOpts{publicReflection: public})()
			if _, code := healthCheck(cc); code != codes.OK {
				t.Errorf("health without credentials: %v", code)
			}
			code := listServices(context.Background(), cc)
			if want := map[bool]codes.Code{true: codes.OK, false: codes.Unauthenticated}[public]; code != want {
				t.Errorf("reflection without credentials: %v, want %v", code, want)
			}
			if code := listServices(bearer("secret-a"), cc); code != codes.OK {
				t.Errorf("reflection with a token: %v", code)
			}
		})
	}
}

func TestNoneIsDefaultTenant(t *testing.T) {
	a, err := auth.New(auth.Config{Mode: auth.ModeNone})
	if err != nil {
		t.Fatal(err)
	}
	tenant, code := callAs(t, context.Background(), serve(t, a, serverOpts{})())
	if code != codes.OK || tenant != auth.DefaultTenant {
		t.Errorf("got %q, %v", tenant, code)
	}
}
