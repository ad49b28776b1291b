package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/toold/toold/internal/auth"
	"github.com/toold/toold/internal/console"
	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
)

// consoleConfig is the web console (internal/console).
type consoleConfig struct {
	// Listen is the console's address; empty: no console, and nothing is
	// recorded for one.
	Listen string
}

func addConsoleFlags(fs *flag.FlagSet) func() (consoleConfig, error) {
	listen := fs.String("console-listen", "", "address of the web console (sessions, permission requests to answer, live feed), e.g. 127.0.0.1:7080; empty: none. With several replicas, give it to every one: each records its calls for the consoles of all")
	return func() (consoleConfig, error) {
		c := consoleConfig{Listen: *listen}
		if c.Listen != "" {
			if _, _, err := net.SplitHostPort(c.Listen); err != nil {
				return c, fmt.Errorf("--console-listen %q: %w", c.Listen, err)
			}
		}
		return c, nil
	}
}

// consoleRecorder records the calls of this replica for the console; with
// no console it is a no-op that leaves the store as it is.
type consoleRecorder struct{ r *console.Recorder }

func newConsoleRecorder(cfg *config, st store.Store, log *slog.Logger) consoleRecorder {
	if cfg.Console.Listen == "" {
		return consoleRecorder{}
	}
	// A request stays listed until its call stops waiting; should this
	// replica die first, a little longer than the wait could last.
	return consoleRecorder{console.NewRecorder(st, cfg.PermissionTimeout+time.Minute, log.With("component", "console"))}
}

// store is the store the engine uses: tapped when recording.
func (c consoleRecorder) store(st store.Store) store.Store {
	if c.r == nil {
		return st
	}
	return c.r.Tap(st)
}

// onDecision adds the recorder's part to the audit log's.
func (c consoleRecorder) onDecision(audit func(context.Context, *exec.Call, policy.Decision)) func(context.Context, *exec.Call, policy.Decision) {
	if c.r == nil {
		return audit
	}
	if audit == nil {
		return c.r.OnDecision
	}
	return func(ctx context.Context, call *exec.Call, d policy.Decision) {
		audit(ctx, call, d)
		c.r.OnDecision(ctx, call, d)
	}
}

func (c consoleRecorder) close() {
	if c.r != nil {
		c.r.Close()
	}
}

// serveConsole serves the console on --console-listen with the API's
// authentication and TLS, until the returned stop is called.
func serveConsole(cfg *config, a auth.Authenticator, tlsCfg *tls.Config, st store.Store, sessions *session.Manager, resolver console.Resolver, log *slog.Logger) (stop func(), err error) {
	if cfg.Console.Listen == "" {
		return func() {}, nil
	}
	if err := auth.CheckListen(cfg.Console.Listen, cfg.Auth.Mode, cfg.Auth.InsecureNoAuth); err != nil {
		return nil, configError{fmt.Errorf("--console-listen: %w", err)}
	}
	h, err := console.New(console.Config{
		Store: st, Sessions: sessions, Resolver: resolver,
		Authenticator: a, Mode: cfg.Auth.Mode,
		DenialWindow: cfg.DenialWindow,
		Logger:       log.With("component", "console"),
	})
	if err != nil {
		return nil, err
	}
	lis, err := net.Listen("tcp", cfg.Console.Listen)
	if err != nil {
		return nil, fmt.Errorf("--console-listen: %w", err)
	}
	// Event streams never end by themselves: cancelling their base context
	// lets Shutdown finish.
	base, cancel := context.WithCancel(context.Background())
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, TLSConfig: tlsCfg,
		BaseContext: func(net.Listener) context.Context { return base }}
	go func() {
		var err error
		if tlsCfg != nil {
			err = srv.ServeTLS(lis, "", "")
		} else {
			err = srv.Serve(lis)
		}
		if err != nil && err != http.ErrServerClosed {
			log.Error("console stopped", "error", err)
		}
	}()
	log.Info("console listening", "addr", lis.Addr().String(), "tls", tlsCfg != nil)
	return func() {
		cancel()
		ctx, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		srv.Shutdown(ctx)
	}, nil
}
