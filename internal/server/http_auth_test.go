package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/session"
)

// bearer accepts one token, read from gRPC metadata as the real
// authenticators read it.
type bearer string

func (b bearer) Authenticate(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get("authorization"); len(v) == 1 && v[0] == "Bearer "+string(b) {
		return "team-b", nil
	}
	return "", errors.New("invalid token")
}

func TestHTTPAuthGuardsTheMCPEndpoint(t *testing.T) {
	var tenant string
	h := server.HTTPAuth(bearer("s3cret"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tenant = session.Tenant(r.Context())
	}))
	for _, tc := range []struct {
		header string
		code   int
		tenant string
	}{
		{"", http.StatusUnauthorized, ""},
		{"Bearer wrong", http.StatusUnauthorized, ""},
		{"Bearer s3cret", http.StatusOK, "team-b"},
	} {
		tenant = ""
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		if tc.header != "" {
			req.Header.Set("Authorization", tc.header)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.code || tenant != tc.tenant {
			t.Errorf("Authorization %q: status %d tenant %q, want %d %q", tc.header, rec.Code, tenant, tc.code, tc.tenant)
		}
	}
}
