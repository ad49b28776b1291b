// Package console is toold's web console: the sessions of a tenant, the
// permission requests that wait for a person with what the call would do
// and why it asks, buttons that answer them, and a live feed of each
// session's calls and decisions. Everything it shows comes from the store
// (written by a Recorder on whichever replica runs the call) and every
// answer goes through the API's own ResolvePermission, so a console on any
// replica sees and answers the calls of all of them.
//
// The pages are rendered on the server (html/template); one small script
// follows a session over server-sent events and reloads the sessions list.
package console

import (
	"context"
	"embed"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/toold/toold/internal/auth"
	"github.com/toold/toold/internal/store"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

//go:embed web
var webFS embed.FS

// Store is what the console reads: the board, denial counts, and whether
// a session still exists (without keeping it alive).
type Store interface {
	store.Board
	CountDenials(ctx context.Context, id string, kind store.DenialKind, now time.Time, window time.Duration) (int, error)
	SessionExists(ctx context.Context, id string) (bool, error)
}

// Sessions reads one session for the tenant of ctx; another tenant's
// session is not found (session.Manager).
type Sessions interface {
	Get(ctx context.Context, id string) (*store.Session, error)
}

// Resolver answers permission requests: the API's SessionService.
type Resolver interface {
	ResolvePermission(ctx context.Context, req *tooldv1.ResolvePermissionRequest) (*tooldv1.ResolvePermissionResponse, error)
}

// Config is what a console needs.
type Config struct {
	Store    Store
	Sessions Sessions
	Resolver Resolver
	// Authenticator and Mode are the API's (--auth).
	Authenticator auth.Authenticator
	Mode          auth.Mode
	// DenialWindow is the window denial counts are shown for (--denial-window).
	DenialWindow time.Duration
	// FeedWait bounds one wait for new feed entries (default 15 s); the
	// event stream sends a comment after each, which keeps proxies from
	// closing it.
	FeedWait time.Duration
	Logger   *slog.Logger
}

// Server serves the console.
type Server struct {
	cfg   Config
	pages *pages
	mux   *http.ServeMux
	// blocking holds a token per feed read waiting in the store.
	blocking chan struct{}
}

// maxListed bounds the sessions the list shows (the newest).
const maxListed = 200

// New returns the console's handler.
func New(cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.FeedWait <= 0 {
		cfg.FeedWait = 15 * time.Second
	}
	if cfg.DenialWindow <= 0 {
		cfg.DenialWindow = 5 * time.Minute
	}
	if cfg.Authenticator == nil {
		a, err := auth.New(auth.Config{Mode: auth.ModeNone})
		if err != nil {
			return nil, err
		}
		cfg.Authenticator, cfg.Mode = a, auth.ModeNone
	}
	p, err := parsePages()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, pages: p, mux: http.NewServeMux(), blocking: make(chan struct{}, maxBlockingReads)}
	static, err := fs.Sub(webFS, "web/static")
	if err != nil {
		return nil, err
	}
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	s.mux.HandleFunc("GET /login", s.loginPage)
	s.mux.HandleFunc("POST /login", s.login)
	s.mux.HandleFunc("POST /logout", s.logout)
	s.mux.HandleFunc("GET /{$}", s.authed(s.sessionsPage))
	s.mux.HandleFunc("GET /sessions", s.authed(s.sessionsFragment))
	s.mux.HandleFunc("GET /sessions/{id}", s.authed(s.sessionPage))
	s.mux.HandleFunc("GET /sessions/{id}/asks", s.authed(s.asksFragment))
	s.mux.HandleFunc("GET /sessions/{id}/events", s.authed(s.events))
	s.mux.HandleFunc("POST /sessions/{id}/asks/{request}", s.authed(s.answer))
	return s, nil
}

// ServeHTTP sets the headers every answer carries: the pages load nothing
// from elsewhere, run no inline script and are never framed or cached.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	s.mux.ServeHTTP(w, r)
}

// authed runs h for an authenticated request, with the tenant in its
// context. A page asked for without a token goes to the login form;
// anything else, and a page without a client certificate (--auth mtls),
// gets 401.
func (s *Server) authed(h func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, err := s.authenticate(r)
		if err != nil {
			if s.needsLogin() && r.Method == http.MethodGet && r.Header.Get("Accept") != "text/event-stream" && r.Header.Get("X-Console-Fragment") == "" {
				http.Redirect(w, r, "/login", http.StatusSeeOther)
				return
			}
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "unauthenticated: log in again", http.StatusUnauthorized)
			return
		}
		h(w, r.WithContext(ctx))
	}
}
