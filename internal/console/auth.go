package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"github.com/toold/toold/internal/auth"
	"github.com/toold/toold/internal/session"
)

// A browser presents the API's credential in a cookie: the login form
// takes a bearer token (--auth token, jwt), checks it with the API's
// authenticator and stores it in an HttpOnly, SameSite=Strict cookie
// (Secure over TLS); every request is then authenticated again with it, so
// a token removed from the token file or an expired JWT stops working at
// once. A client certificate (--auth mtls) or --auth none needs no login.
// An Authorization header is accepted too (scripts, curl).
//
// Cross-site requests: the cookies are SameSite=Strict, every POST must
// carry the CSRF token (a random value in a second cookie, repeated in the
// form: a double submit, which needs no key shared between replicas) and,
// when the browser sends one, an Origin of the console's own.
const (
	tokenCookie = "toold_console_token"
	csrfCookie  = "toold_console_csrf"
	csrfField   = "csrf"
	// maxToken bounds the token a login may carry (a JWT with many claims
	// is a few kilobytes).
	maxToken = 16 << 10
)

var errNoCredentials = errors.New("no credentials")

// authenticate names the tenant of a request with the API's authenticator
// and returns a context that acts for it, as the gRPC server's does.
func (s *Server) authenticate(r *http.Request) (context.Context, error) {
	md := metadata.MD{}
	switch {
	case r.Header.Get("Authorization") != "":
		md.Set("authorization", r.Header.Get("Authorization"))
	default:
		if c, err := r.Cookie(tokenCookie); err == nil && c.Value != "" {
			md.Set("authorization", "Bearer "+c.Value)
		} else if s.needsLogin() {
			return nil, errNoCredentials
		}
	}
	ctx := metadata.NewIncomingContext(r.Context(), md)
	if r.TLS != nil {
		// mTLS: the authenticator reads the client certificate from the
		// peer, as it does on the gRPC port.
		ctx = peer.NewContext(ctx, &peer.Peer{AuthInfo: credentials.TLSInfo{State: *r.TLS}})
	}
	ctx, err := auth.AuthFunc(s.cfg.Authenticator)(ctx)
	if err != nil {
		return nil, err
	}
	t, _ := auth.TenantFrom(ctx)
	return session.WithTenant(ctx, t), nil
}

// needsLogin: the mode's credential is a bearer token the browser cannot
// send by itself.
func (s *Server) needsLogin() bool {
	return s.cfg.Mode == auth.ModeToken || s.cfg.Mode == auth.ModeJWT
}

// login checks the token of the login form and stores it in the cookie.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.sameOrigin(r) {
		http.Error(w, "cross-site request refused", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxToken+1024)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	tok := strings.TrimSpace(r.PostForm.Get("token"))
	if !s.needsLogin() {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if tok == "" || len(tok) > maxToken || strings.ContainsAny(tok, " \t\r\n;,\"\\") {
		s.renderLogin(w, r, http.StatusBadRequest, "Give the bearer token the API takes.")
		return
	}
	probe := r.Clone(r.Context())
	probe.Header = http.Header{"Authorization": {"Bearer " + tok}}
	if _, err := s.authenticate(probe); err != nil {
		s.renderLogin(w, r, http.StatusUnauthorized, "That token was refused.")
		return
	}
	http.SetCookie(w, s.cookie(r, tokenCookie, tok))
	http.SetCookie(w, s.cookie(r, csrfCookie, newCSRF()))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if !s.checkCSRF(r) {
		http.Error(w, "cross-site request refused", http.StatusForbidden)
		return
	}
	for _, name := range []string{tokenCookie, csrfCookie} {
		c := s.cookie(r, name, "")
		c.MaxAge = -1
		http.SetCookie(w, c)
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

func (s *Server) cookie(r *http.Request, name, value string) *http.Cookie {
	return &http.Cookie{
		Name: name, Value: value, Path: "/",
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode,
	}
}

// csrfToken returns the request's CSRF token, setting a new one when the
// browser has none (no login: --auth none or mtls).
func (s *Server) csrfToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) == 32 {
		return c.Value
	}
	v := newCSRF()
	http.SetCookie(w, s.cookie(r, csrfCookie, v))
	return v
}

func newCSRF() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// checkCSRF accepts a POST whose form repeats the CSRF cookie and whose
// Origin, if any, is the console's. The form must be parsed already.
func (s *Server) checkCSRF(r *http.Request) bool {
	if !s.sameOrigin(r) {
		return false
	}
	c, err := r.Cookie(csrfCookie)
	if err != nil || len(c.Value) != 32 {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostFormValue(csrfField))) == 1
}

// sameOrigin: a request without Origin (an old browser, curl) passes; one
// with it must name the host it was sent to, over the same scheme.
func (s *Server) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return u.Scheme == scheme && strings.EqualFold(u.Host, r.Host)
}
