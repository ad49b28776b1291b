package fakemessages

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func TestConversation(t *testing.T) {
	s := New([]Turn{
		{Content: []json.RawMessage{json.RawMessage(`{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"true"}}`)}},
		{Content: []json.RawMessage{json.RawMessage(`{"type":"text","text":"done"}`)}},
	})
	srv := httptest.NewServer(s)
	defer srv.Close()

	code, out := post(t, srv.URL, `{"model":"m","messages":[{"role":"user","content":"go"}]}`)
	if code != 200 || out["stop_reason"] != "tool_use" {
		t.Fatalf("first turn: %d %v", code, out)
	}
	// A user message without the result is refused, as the API refuses it,
	// and does not use up a turn.
	code, out = post(t, srv.URL, `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","content":[]},{"role":"user","content":[{"type":"text","text":"hi"}]}]}`)
	if code != 400 || !strings.Contains(out["error"].(map[string]any)["message"].(string), "tool_result") {
		t.Fatalf("missing result: %d %v", code, out)
	}
	code, out = post(t, srv.URL, `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","content":[]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"x"}]}]}`)
	if code != 400 {
		t.Fatalf("wrong id accepted: %d %v", code, out)
	}
	code, out = post(t, srv.URL, `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"assistant","content":[]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}]}`)
	if code != 200 || out["stop_reason"] != "end_turn" {
		t.Fatalf("second turn: %d %v", code, out)
	}
	if !s.Done() || len(s.Requests()) != 2 {
		t.Fatalf("done=%v requests=%d", s.Done(), len(s.Requests()))
	}
	code, _ = post(t, srv.URL, `{"model":"m","messages":[{"role":"user","content":"more"}]}`)
	if code != 500 {
		t.Fatalf("past the script: %d", code)
	}
}
