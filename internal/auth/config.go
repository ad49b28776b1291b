package auth

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Config selects and configures the authentication mode.
type Config struct {
	Mode Mode
	// TokenFile is ModeToken's file of "TENANT SHA256-HEX" lines.
	TokenFile string
	MTLS      MTLSConfig
	JWT       JWTConfig
	// ReloadInterval: how often the token or JWKS file is checked for a
	// change; DefaultReloadInterval if zero.
	ReloadInterval time.Duration
	// Logger receives reloads and files that failed to reload.
	Logger *slog.Logger
	// Now replaces the clock (tests).
	Now func() time.Time
}

// New builds the Authenticator of cfg.Mode and loads its files; a file
// that cannot be read or parsed is an error here, so toold does not start
// with credentials it cannot check. Under ModeMTLS the server must also be
// given ServerTLSConfig with a client CA.
func New(cfg Config) (Authenticator, error) {
	o := reloadOptions{interval: cfg.ReloadInterval, now: cfg.Now, log: cfg.Logger}
	switch cfg.Mode {
	case ModeNone:
		return none{}, nil
	case ModeToken:
		if cfg.TokenFile == "" {
			return nil, errors.New("auth token: a token file is required")
		}
		f, err := loadFile(o, parseTokens, cfg.TokenFile)
		if err != nil {
			return nil, fmt.Errorf("auth token: %w", err)
		}
		return &tokens{file: f}, nil
	case ModeMTLS:
		return &mtls{cfg: cfg.MTLS}, nil
	case ModeJWT:
		a, err := newJWT(cfg.JWT, o)
		if err != nil {
			return nil, fmt.Errorf("auth jwt: %w", err)
		}
		return a, nil
	}
	return nil, fmt.Errorf("auth mode %q: want none, token, mtls or jwt", cfg.Mode)
}
