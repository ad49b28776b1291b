package auth

import (
	"context"
	"fmt"
)

// Mode is the --auth setting.
type Mode string

// The authentication modes.
const (
	// ModeNone accepts every call as DefaultTenant.
	ModeNone Mode = "none"
	// ModeToken accepts bearer tokens listed (as SHA-256 digests) in a file.
	ModeToken Mode = "token"
	// ModeMTLS takes the tenant from the verified client certificate.
	ModeMTLS Mode = "mtls"
	// ModeJWT accepts bearer JWTs signed by a key of a JWKS file.
	ModeJWT Mode = "jwt"
)

// ParseMode parses a --auth value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeNone, ModeToken, ModeMTLS, ModeJWT:
		return m, nil
	}
	return "", fmt.Errorf("auth mode %q: want none, token, mtls or jwt", s)
}

// String returns the flag spelling.
func (m Mode) String() string { return string(m) }

// none is ModeNone's authenticator.
type none struct{}

func (none) Authenticate(context.Context) (string, error) { return DefaultTenant, nil }
