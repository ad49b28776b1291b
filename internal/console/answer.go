package console

import (
	"net/http"
	"net/url"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// maxMessage bounds a denial's message, which the model reads.
const maxMessage = 4 << 10

// answer answers a waiting request through the API's ResolvePermission,
// so that it reaches the call on whichever replica waits, and the same
// checks (the session's tenant) apply.
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 2*maxMessage+1024)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	// A request with an Authorization header carries its credential
	// itself, which no other site can make a browser send.
	if r.Header.Get("Authorization") == "" && !s.checkCSRF(r) {
		http.Error(w, "cross-site request refused: reload the page and try again", http.StatusForbidden)
		return
	}
	id, reqID := r.PathValue("id"), r.PathValue("request")
	if !validRequestID(reqID) {
		http.Error(w, "no such permission request", http.StatusNotFound)
		return
	}
	req := &tooldv1.ResolvePermissionRequest{SessionId: id, RequestId: reqID}
	done := ""
	switch r.PostForm.Get("decision") {
	case "once":
		req.Decision, req.Scope, done = tooldv1.PermissionDecision_PERMISSION_DECISION_ALLOW, tooldv1.PermissionScope_PERMISSION_SCOPE_ONCE, "allowed"
	case "session":
		req.Decision, req.Scope, done = tooldv1.PermissionDecision_PERMISSION_DECISION_ALLOW, tooldv1.PermissionScope_PERMISSION_SCOPE_SESSION, "remember"
	case "deny":
		req.Decision, req.Scope, done = tooldv1.PermissionDecision_PERMISSION_DECISION_DENY, tooldv1.PermissionScope_PERMISSION_SCOPE_ONCE, "denied"
		req.Message = r.PostForm.Get("message")
	default:
		http.Error(w, `decision: want "once", "session" or "deny"`, http.StatusBadRequest)
		return
	}
	if len(req.Message) > maxMessage || !utf8.ValidString(req.Message) {
		http.Error(w, "message: at most 4 KiB of UTF-8 text", http.StatusBadRequest)
		return
	}
	if _, err := s.cfg.Resolver.ResolvePermission(r.Context(), req); err != nil {
		switch status.Code(err) {
		case codes.NotFound:
			// No such request, or no such session for this tenant: the
			// same answer, so that an id tells nothing about another
			// tenant's session.
			done = "gone"
		case codes.InvalidArgument:
			http.Error(w, status.Convert(err).Message(), http.StatusBadRequest)
			return
		default:
			s.cfg.Logger.Warn("console: answering a permission request failed", "session_id", id, "request_id", reqID, "error", err)
			http.Error(w, "the answer could not be delivered: "+status.Convert(err).Message(), http.StatusServiceUnavailable)
			return
		}
	}
	http.Redirect(w, r, "/sessions/"+url.PathEscape(id)+"?done="+done, http.StatusSeeOther)
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range []byte(id) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
