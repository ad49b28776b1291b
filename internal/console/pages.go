package console

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"sort"
	"time"

	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
)

type pages struct{ t *template.Template }

func parsePages() (*pages, error) {
	t, err := template.New("").Funcs(template.FuncMap{
		"since": func(t time.Time) string { return time.Since(t).Round(time.Second).String() },
		"stamp": func(t time.Time) string { return t.UTC().Format("15:04:05") },
	}).ParseFS(webFS, "web/*.html")
	if err != nil {
		return nil, err
	}
	return &pages{t: t}, nil
}

// render writes a template to a buffer first, so that a failing template
// gives a 500, not half a page.
func (s *Server) render(w http.ResponseWriter, code int, name string, data any) {
	var b bytes.Buffer
	if err := s.pages.t.ExecuteTemplate(&b, name, data); err != nil {
		s.cfg.Logger.Error("console template failed", "template", name, "error", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// Frame is what every page's header shows.
type Frame struct {
	Tenant string
	CSRF   string
	Login  bool // the logout button makes sense
}

func (s *Server) frame(w http.ResponseWriter, r *http.Request) Frame {
	return Frame{Tenant: session.Tenant(r.Context()), CSRF: s.csrfToken(w, r), Login: s.needsLogin()}
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if !s.needsLogin() {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	s.renderLogin(w, r, http.StatusOK, "")
}

func (s *Server) renderLogin(w http.ResponseWriter, _ *http.Request, code int, msg string) {
	s.render(w, code, "login.html", struct{ Error string }{msg})
}

// sessionRow is one line of the sessions list.
type sessionRow struct {
	ID, Workspace, Mode string
	Created             time.Time
	Asks, Denials       int
}

type sessionsView struct {
	Frame
	Rows   []sessionRow
	Window time.Duration
}

func (s *Server) sessionRows(ctx context.Context) ([]sessionRow, error) {
	list, err := s.cfg.Store.ListSessions(ctx, session.Tenant(ctx), maxListed)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	rows := make([]sessionRow, 0, len(list))
	for _, x := range list {
		asks, err := s.cfg.Store.ListAsks(ctx, x.ID)
		if err != nil {
			return nil, err
		}
		n, err := s.denials(ctx, x.ID, now)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		rows = append(rows, sessionRow{ID: x.ID, Workspace: x.Workspace, Mode: x.Mode, Created: x.CreatedAt, Asks: len(asks), Denials: n})
	}
	// Sessions with someone to answer come first.
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Asks > 0 && rows[j].Asks == 0 })
	return rows, nil
}

func (s *Server) sessionsPage(w http.ResponseWriter, r *http.Request) {
	rows, err := s.sessionRows(r.Context())
	if err != nil {
		s.storeError(w, err)
		return
	}
	s.render(w, http.StatusOK, "sessions.html", sessionsView{Frame: s.frame(w, r), Rows: rows, Window: s.cfg.DenialWindow})
}

// sessionsFragment is the list's table alone, which the script reloads.
func (s *Server) sessionsFragment(w http.ResponseWriter, r *http.Request) {
	rows, err := s.sessionRows(r.Context())
	if err != nil {
		s.storeError(w, err)
		return
	}
	s.render(w, http.StatusOK, "sessions-table", sessionsView{Rows: rows, Window: s.cfg.DenialWindow})
}

type sessionView struct {
	Frame
	Session *store.Session
	Asks    []askView
	Feed    []Item
	After   int64
	Denials int
	Window  time.Duration
	Notice  string
}

// maxFeedShown bounds the entries a session page starts with.
const maxFeedShown = 200

// session reads the session for the request's tenant: another tenant's is
// not found, exactly as a missing one.
func (s *Server) session(w http.ResponseWriter, r *http.Request) (*store.Session, bool) {
	id := r.PathValue("id")
	if err := session.CheckID(id); err != nil {
		http.Error(w, "no such session", http.StatusNotFound)
		return nil, false
	}
	sess, err := s.cfg.Sessions.Get(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		http.Error(w, "no such session", http.StatusNotFound)
		return nil, false
	}
	if err != nil {
		s.storeError(w, err)
		return nil, false
	}
	return sess, true
}

func (s *Server) sessionPage(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	asks, err := s.asks(ctx, sess.ID)
	if err != nil {
		s.storeError(w, err)
		return
	}
	entries, err := s.cfg.Store.ReadFeed(ctx, sess.ID, 0, 0)
	if err != nil {
		s.storeError(w, err)
		return
	}
	v := sessionView{Frame: s.frame(w, r), Session: sess, Asks: asks, Window: s.cfg.DenialWindow, Notice: notices[r.URL.Query().Get("done")]}
	if n := len(entries); n > 0 {
		v.After = entries[n-1].Seq
		if n > maxFeedShown {
			entries = entries[n-maxFeedShown:]
		}
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if it, ok := decodeItem(entries[i]); ok {
			v.Feed = append(v.Feed, it)
		}
	}
	if v.Denials, err = s.denials(ctx, sess.ID, time.Now()); err != nil {
		s.storeError(w, err)
		return
	}
	s.render(w, http.StatusOK, "session.html", v)
}

// notices are the messages shown after an answer (?done=...).
var notices = map[string]string{
	"allowed":  "Allowed once.",
	"remember": "Allowed, and remembered for this session.",
	"denied":   "Denied.",
	"gone":     "That request no longer waits: it was answered already, timed out, or its call ended.",
}

func decodeItem(e store.FeedEntry) (Item, bool) {
	var it Item
	if json.Unmarshal(e.Data, &it) != nil {
		return it, false
	}
	return it, true
}

// asksFragment is a session's waiting requests alone, which the script
// reloads when the feed says something changed.
func (s *Server) asksFragment(w http.ResponseWriter, r *http.Request) {
	sess, ok := s.session(w, r)
	if !ok {
		return
	}
	asks, err := s.asks(r.Context(), sess.ID)
	if err != nil {
		s.storeError(w, err)
		return
	}
	s.render(w, http.StatusOK, "asks", sessionView{Frame: s.frame(w, r), Session: sess, Asks: asks})
}

func (s *Server) asks(ctx context.Context, id string) ([]askView, error) {
	list, err := s.cfg.Store.ListAsks(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []askView
	for _, p := range list {
		var a Ask
		if json.Unmarshal(p.Data, &a) != nil || a.RequestID != p.RequestID {
			continue
		}
		out = append(out, viewAsk(a))
	}
	return out, nil
}

func (s *Server) storeError(w http.ResponseWriter, err error) {
	s.cfg.Logger.Warn("console: reading the store failed", "error", err)
	code := http.StatusInternalServerError
	if errors.Is(err, store.ErrUnavailable) {
		code = http.StatusServiceUnavailable
	}
	http.Error(w, "the state store could not be read; try again", code)
}

// denials counts the session's denials in the window: the people's and
// auto mode's classifier's, which the store counts apart.
func (s *Server) denials(ctx context.Context, id string, now time.Time) (int, error) {
	total := 0
	for _, kind := range []store.DenialKind{store.PersonDenials, store.ClassifierDenials} {
		n, err := s.cfg.Store.CountDenials(ctx, id, kind, now, s.cfg.DenialWindow)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
