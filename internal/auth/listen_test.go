package auth_test

import (
	"errors"
	"testing"

	"github.com/toold/toold/internal/auth"
)

func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr     string
		mode     auth.Mode
		insecure bool
		refused  bool
	}{
		{"127.0.0.1:50051", auth.ModeNone, false, false},
		{"127.8.9.10:50051", auth.ModeNone, false, false},
		{"[::1]:50051", auth.ModeNone, false, false},
		{"localhost:50051", auth.ModeNone, false, false},
		{"[::ffff:127.0.0.1]:50051", auth.ModeNone, false, false},
		{":50051", auth.ModeNone, false, true},
		{"0.0.0.0:50051", auth.ModeNone, false, true},
		{"[::]:50051", auth.ModeNone, false, true},
		{"10.0.0.5:50051", auth.ModeNone, false, true},
		{"toold.internal:50051", auth.ModeNone, false, true},
		{"0.0.0.0:50051", auth.ModeNone, true, false},
		{"0.0.0.0:50051", auth.ModeToken, false, false},
		{":50051", auth.ModeJWT, false, false},
		{":50051", auth.ModeMTLS, false, false},
	} {
		err := auth.CheckListen(c.addr, c.mode, c.insecure)
		if c.refused != errors.Is(err, auth.ErrInsecureListen) {
			t.Errorf("CheckListen(%q, %s, insecure=%v) = %v, want refused=%v", c.addr, c.mode, c.insecure, err, c.refused)
		}
	}
	if err := auth.CheckListen("no-port", auth.ModeNone, false); err == nil {
		t.Error("an address without a port was accepted")
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"none", "token", "mtls", "jwt"} {
		if m, err := auth.ParseMode(s); err != nil || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	for _, s := range []string{"", "Token", "basic"} {
		if _, err := auth.ParseMode(s); err == nil {
			t.Errorf("ParseMode(%q) accepted", s)
		}
	}
}

func TestPublicMethods(t *testing.T) {
	for _, c := range []struct {
		method           string
		publicReflection bool
		public           bool
	}{
		{"/grpc.health.v1.Health/Check", false, true},
		{"/grpc.health.v1.Health/Watch", false, true},
		{"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", false, false},
		{"/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", true, true},
		{"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", true, true},
		{"/toold.v1.ToolService/Execute", true, false},
		{"/toold.v1.SessionService/CreateSession", false, false},
		// A prefix of the name is not the service.
		{"/grpc.health.v1.HealthX/Check", false, false},
	} {
		if got := auth.Public(c.method, c.publicReflection); got != c.public {
			t.Errorf("Public(%q, %v) = %v", c.method, c.publicReflection, got)
		}
	}
}

func TestCheckTenant(t *testing.T) {
	for _, ok := range []string{"a", "team-a", "acme.prod", "user@example.com", "A_1"} {
		if err := auth.CheckTenant(ok); err != nil {
			t.Errorf("CheckTenant(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-a", "a b", "a/b", "a:b", "ä", string(make([]byte, 129))} {
		if err := auth.CheckTenant(bad); err == nil {
			t.Errorf("CheckTenant(%q) accepted", bad)
		}
	}
}
