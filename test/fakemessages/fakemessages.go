// Package fakemessages is a scripted stand-in for the Anthropic Messages API,
// for the example agent loops and their tests. It answers each
// POST /v1/messages with the next scripted assistant turn, records every
// request, and checks what the real API checks before it accepts the next
// turn: every tool_use block of the previous answer must be answered by a
// tool_result block, with the same id, in the user message that follows it.
package fakemessages

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
)

// Turn is one scripted assistant answer.
type Turn struct {
	// Content is the answer's content blocks, as the API sends them
	// (text and tool_use blocks).
	Content []json.RawMessage `json:"content"`
	// StopReason is "tool_use" or "end_turn"; empty means "tool_use" when
	// the content has a tool_use block and "end_turn" otherwise.
	StopReason string `json:"stop_reason,omitempty"`
}

// Script is a file of turns: {"turns": [...]}.
type Script struct {
	Turns []Turn `json:"turns"`
}

// LoadScript reads a script file.
func LoadScript(path string) (Script, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Script{}, err
	}
	var s Script
	if err := json.Unmarshal(b, &s); err != nil {
		return Script{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(s.Turns) == 0 {
		return Script{}, fmt.Errorf("%s: no turns", path)
	}
	return s, nil
}

// Server serves a script. It is safe for concurrent use, but a script is
// one conversation: requests are answered in arrival order.
type Server struct {
	mu       sync.Mutex
	turns    []Turn
	next     int
	requests []json.RawMessage
	pending  []string // tool_use ids of the last answer, awaiting results
}

// New returns a server that answers with turns, one per request.
func New(turns []Turn) *Server { return &Server{turns: turns} }

// Requests returns the request bodies received so far.
func (s *Server) Requests() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.requests...)
}

// Done reports whether every scripted turn has been served.
func (s *Server) Done() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next == len(s.turns)
}

// ServeHTTP answers POST /v1/messages and GET /requests.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.messages(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/requests":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.Requests())
	default:
		apiError(w, http.StatusNotFound, "not_found_error", "no such endpoint: "+r.Method+" "+r.URL.Path)
	}
}

type request struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type block struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	ToolUseID string `json:"tool_use_id"`
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "body is not JSON: "+err.Error())
		return
	}
	if req.Stream {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "this fake serves only non-streaming requests")
		return
	}
	if len(req.Messages) == 0 || req.Messages[len(req.Messages)-1].Role != "user" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "messages must end with a user message")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := answers(s.pending, req.Messages[len(req.Messages)-1].Content); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if s.next == len(s.turns) {
		apiError(w, http.StatusInternalServerError, "api_error", "the script has no more turns")
		return
	}
	s.requests = append(s.requests, json.RawMessage(body))
	turn := s.turns[s.next]
	s.next++
	s.pending = s.pending[:0]
	for _, raw := range turn.Content {
		var b block
		if json.Unmarshal(raw, &b) == nil && b.Type == "tool_use" {
			s.pending = append(s.pending, b.ID)
		}
	}
	stop := turn.StopReason
	if stop == "" {
		stop = "end_turn"
		if len(s.pending) > 0 {
			stop = "tool_use"
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":            fmt.Sprintf("msg_fake_%04d", s.next),
		"type":          "message",
		"role":          "assistant",
		"model":         req.Model,
		"content":       turn.Content,
		"stop_reason":   stop,
		"stop_sequence": nil,
		"usage":         map[string]int{"input_tokens": 1, "output_tokens": 1},
	})
}

// answers checks that content (the last user message) holds a tool_result
// for each id in pending, as the first blocks, and none for another id.
func answers(pending []string, content json.RawMessage) error {
	if len(pending) == 0 {
		return nil
	}
	var blocks []block
	if err := json.Unmarshal(content, &blocks); err != nil {
		return fmt.Errorf("the previous answer asked for %d tool results; the user message has no content blocks", len(pending))
	}
	got := map[string]bool{}
	for i, b := range blocks {
		if b.Type != "tool_result" {
			if i < len(pending) {
				return fmt.Errorf("tool_result blocks must come first in the user message; block %d is %q", i, b.Type)
			}
			continue
		}
		if got[b.ToolUseID] {
			return fmt.Errorf("two tool_result blocks for tool_use id %s", b.ToolUseID)
		}
		got[b.ToolUseID] = true
	}
	for _, id := range pending {
		if !got[id] {
			return fmt.Errorf("tool_use ids were found without tool_result blocks immediately after: %s", id)
		}
		delete(got, id)
	}
	for id := range got {
		return fmt.Errorf("unexpected tool_use_id found in tool_result blocks: %s", id)
	}
	return nil
}

func apiError(w http.ResponseWriter, code int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type":  "error",
		"error": map[string]string{"type": typ, "message": msg},
	})
}
