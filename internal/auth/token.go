package auth

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"strings"

	grpcauth "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/auth"
)

// tokenEntry is one line of the token file.
type tokenEntry struct {
	tenant string
	sum    [sha256.Size]byte
}

// parseTokens reads the token file: one "TENANT SHA256-HEX-OF-TOKEN" a
// line; blank lines and lines starting with '#' are ignored. A tenant may
// have several lines (rotation: old and new token both valid for a
// while). The same digest under two tenants is refused, since the tenant
// of that token would be ambiguous.
func parseTokens(b []byte) ([]tokenEntry, error) {
	var out []tokenEntry
	seen := map[[sha256.Size]byte]int{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: want TENANT SHA256-HEX, got %d fields", n, len(f))
		}
		if err := CheckTenant(f[0]); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		var e tokenEntry
		e.tenant = f[0]
		if len(f[1]) != 2*sha256.Size {
			return nil, fmt.Errorf("line %d: the digest must be %d hex digits (sha256sum of the token), got %d characters", n, 2*sha256.Size, len(f[1]))
		}
		if _, err := hex.Decode(e.sum[:], []byte(f[1])); err != nil {
			return nil, fmt.Errorf("line %d: digest: %w", n, err)
		}
		if prev, dup := seen[e.sum]; dup && out[prev].tenant != e.tenant {
			return nil, fmt.Errorf("line %d: the same token digest is listed for tenant %q", n, out[prev].tenant)
		}
		seen[e.sum] = len(out)
		out = append(out, e)
	}
	return out, sc.Err()
}

// tokens is ModeToken's authenticator.
type tokens struct {
	file *fileValue[[]tokenEntry]
}

func (t *tokens) Authenticate(ctx context.Context) (string, error) {
	tok, err := grpcauth.AuthFromMD(ctx, "bearer")
	if err != nil {
		return "", refuse("missing bearer token", err)
	}
	if tok == "" {
		return "", refuse("missing bearer token", nil)
	}
	sum := sha256.Sum256([]byte(tok))
	// Every entry is compared, in constant time, whether or not an earlier
	// one matched: how long this takes tells nothing about which digest,
	// or how much of one, the token came close to.
	match := -1
	entries := t.file.get()
	for i := range entries {
		eq := subtle.ConstantTimeCompare(sum[:], entries[i].sum[:])
		match = subtle.ConstantTimeSelect(eq, i, match)
	}
	if match < 0 {
		return "", refuse("invalid token", nil)
	}
	return entries[match].tenant, nil
}
