package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tenant is one tenant's bearer token against one toold.
type tenant struct {
	t     *testing.T
	addr  string
	token string
}

// call sends one request through grpcurl with the tenant's token; the body
// goes through a here-document, so any path can be in it.
func (c tenant) call(ctx context.Context, method string, body any) (string, error) {
	c.t.Helper()
	req, _ := json.Marshal(body)
	return sh(c.t, ctx, `grpcurl -plaintext -H "authorization: Bearer `+c.token+`" -d @ `+c.addr+` toold.v1.`+method+` <<'EOF'
`+string(req)+`
EOF`)
}

// create makes a session in bypass mode and returns its id and workspace.
func (c tenant) create(ctx context.Context, body map[string]any) (id, ws string) {
	c.t.Helper()
	body["mode"] = "PERMISSION_MODE_BYPASS_PERMISSIONS"
	out, err := c.call(ctx, "SessionService/CreateSession", body)
	if err != nil {
		c.t.Fatalf("CreateSession %v: %v\n%s", body, err, out)
	}
	var r struct {
		Session struct{ ID, Workspace string } `json:"session"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		c.t.Fatalf("CreateSession: %v\n%s", err, out)
	}
	return r.Session.ID, r.Session.Workspace
}

// run executes one call and returns its result text, or the RPC's error.
func (c tenant) run(ctx context.Context, sid, name string, input map[string]any) (callResult, error) {
	c.t.Helper()
	out, err := c.call(ctx, "ToolService/Execute", map[string]any{"session_id": sid,
		"calls": []any{map[string]any{"tool_use_id": "t" + time.Now().Format("150405.000000000"), "name": name, "input": input}}})
	if err != nil {
		return callResult{Text: out}, err
	}
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var ev struct {
			Result *struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text struct{ Text string } `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := dec.Decode(&ev); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			c.t.Fatalf("%s: %v\n%s", name, err, out)
		}
		if ev.Result != nil {
			var text bytes.Buffer
			for _, x := range ev.Result.Content {
				text.WriteString(x.Text.Text)
			}
			return callResult{Text: text.String(), IsError: ev.Result.IsError}, nil
		}
	}
	c.t.Fatalf("%s: no result in\n%s", name, out)
	return callResult{}, nil
}

const canary = "CANARY-OF-TENANT-B"

// TestTenantWorkspaces: two tenants with real tokens. Tenant A cannot make
// a session whose workspace or additional directory is in tenant B's tree,
// by any spelling (direct, .., a symlink A planted, a directory A swaps for
// a symlink later), and never reads B's canary; the answer for B's paths is
// the answer for any path outside A's tree. Deleting a session removes the
// workspace toold made and nothing A named; a repeated delete is done.
// It runs as the test's user and, as root, as a non-root toold.
func TestTenantWorkspaces(t *testing.T) {
	t.Run("toold as the test's user", func(t *testing.T) { testTenantWorkspaces(t, -1) })
	t.Run("toold as uid 10001", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("switching toold's user needs root; the case above already runs a non-root toold")
		}
		testTenantWorkspaces(t, 10001)
	})
}

func testTenantWorkspaces(t *testing.T, uid int) {
	tokens := writeTokens(t, map[string]string{"tenant-a": "secret-a", "tenant-b": "secret-b"})
	if uid >= 0 {
		os.Chown(tokens, uid, uid)
	}
	d := startTooldAs(t, uid, "--auth", "token", "--auth-tokens", tokens)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := tenant{t, d.addr, "secret-a"}
	b := tenant{t, d.addr, "secret-b"}
	out, err := a.call(ctx, "ServerService/GetServerInfo", map[string]any{})
	var info struct {
		Sandbox map[string]any `json:"sandbox"`
	}
	if err != nil || json.Unmarshal([]byte(out), &info) != nil {
		t.Fatalf("GetServerInfo: %v\n%s", err, out)
	}
	sb := info.Sandbox
	root, err := filepath.EvalSymlinks(d.root)
	if err != nil {
		t.Fatal(err)
	}

	// B's session and its canary.
	bID, bWS := b.create(ctx, map[string]any{})
	if want := filepath.Join(root, "tenant-b", bID); bWS != want {
		t.Errorf("B's fresh workspace = %s, want %s", bWS, want)
	}
	if r, err := b.run(ctx, bID, "Write", map[string]any{"file_path": bWS + "/secret.txt", "content": canary}); err != nil || r.IsError {
		t.Fatalf("B's Write: %+v %v", r, err)
	}
	if r, err := b.run(ctx, bID, "Bash", map[string]any{"command": "mkdir repo && cp secret.txt repo/"}); err != nil || r.IsError {
		t.Fatalf("B's mkdir: %+v %v", r, err)
	}

	// A's own session, where A's commands plant symlinks toward B.
	aID, aWS := a.create(ctx, map[string]any{})
	atree := filepath.Join(root, "tenant-a")
	if filepath.Dir(aWS) != atree {
		t.Errorf("A's fresh workspace %s is not in %s", aWS, atree)
	}
	rel, _ := filepath.Rel(aWS, bWS)
	if r, err := a.run(ctx, aID, "Bash", map[string]any{"command": "ln -s " + rel + " rel-link && ln -s " + bWS + " abs-link && ln -s " + rel + "/nothing-here missing-link && mkdir own proj"}); err != nil || r.IsError {
		t.Fatalf("A's symlinks: %+v %v", r, err)
	}

	refusedAlike := func(p string) {
		t.Helper()
		for _, body := range []map[string]any{
			{"workspace": p},
			{"permissions": map[string]any{"additional_directories": []string{p}}},
			{"workspace": aWS + "/own", "permissions": map[string]any{"additional_directories": []string{aWS, p}}},
		} {
			body["mode"] = "PERMISSION_MODE_BYPASS_PERMISSIONS"
			out, err := a.call(ctx, "SessionService/CreateSession", body)
			if err == nil {
				t.Errorf("A created a session on %s (%v):\n%s", p, body, out)
				continue
			}
			if strings.Contains(out, canary) {
				t.Errorf("B's canary in the answer: %s", out)
			}
			mustContain(t, out, "InvalidArgument", "is outside the workspace directory of tenant tenant-a, "+atree)
		}
	}
	for _, p := range []string{
		bWS,
		bWS + "/repo",
		filepath.Join(root, "tenant-b", "no-such-dir"),
		filepath.Join(root, "tenant-c"),
		atree + "/../tenant-b/" + bID,
		aWS + "/own/../../../tenant-b/" + bID,
		aWS + "/rel-link",
		aWS + "/abs-link",
		aWS + "/missing-link",
		aWS + "/rel-link/repo",
		root,
		"/etc",
		atree + "-b",
	} {
		refusedAlike(p)
	}

	// Two sessions on A's own proj, one of them used (its directory is
	// open in toold), then proj swapped (by A's other session) for a
	// symlink into B's tree: neither session reaches B's tree.
	usedID, pWS := a.create(ctx, map[string]any{"workspace": aWS + "/proj"})
	if r, err := a.run(ctx, usedID, "Bash", map[string]any{"command": "pwd"}); err != nil || r.IsError || r.Text != pWS {
		t.Fatalf("a call before the swap: %+v %v", r, err)
	}
	freshID, _ := a.create(ctx, map[string]any{"workspace": aWS + "/proj"})
	if r, err := a.run(ctx, aID, "Bash", map[string]any{"command": "mv proj proj.old && ln -s " + rel + " proj"}); err != nil || r.IsError {
		t.Fatalf("A's swap: %+v %v", r, err)
	}
	for _, sid := range []string{usedID, freshID} {
		for _, c := range []struct {
			name  string
			input map[string]any
		}{
			{"Read", map[string]any{"file_path": pWS + "/secret.txt"}},
			{"Bash", map[string]any{"command": "cat secret.txt"}},
			{"Glob", map[string]any{"pattern": "*"}},
		} {
			r, err := a.run(ctx, sid, c.name, c.input)
			if strings.Contains(r.Text, canary) || strings.Contains(r.Text, bWS) {
				t.Errorf("%s through the swapped workspace disclosed B's files: %+v %v", c.name, r, err)
			}
			if err == nil && !r.IsError {
				t.Errorf("%s through the swapped workspace ran: %+v", c.name, r)
			}
		}
	}
	// A's own Read and Bash of B's file by absolute path stay refused.
	if r, err := a.run(ctx, aID, "Read", map[string]any{"file_path": bWS + "/secret.txt"}); err != nil || !r.IsError || strings.Contains(r.Text, canary) {
		t.Errorf("A's Read of B's file: %+v %v", r, err)
	}
	if r, err := a.run(ctx, aID, "Bash", map[string]any{"command": "cat " + bWS + "/secret.txt"}); strings.Contains(r.Text, canary) {
		if sb["landlock"] != true {
			t.Logf("MISSING on this machine: Landlock (%v); commands are not kept from reading other directories", sb["missing"])
		} else {
			t.Errorf("A's Bash read B's file: %+v %v", r, err)
		}
	}

	// Delete: toold's fresh workspace goes, what A named stays, B's
	// canary stays; a repeated delete is done; B cannot delete A's.
	if out, err := b.call(ctx, "SessionService/DeleteSession", map[string]any{"session_id": aID}); err == nil || !strings.Contains(out, "NotFound") {
		t.Fatalf("B deleted A's session: %v\n%s", err, out)
	}
	for _, id := range []string{usedID, freshID, aID} {
		if out, err := a.call(ctx, "SessionService/DeleteSession", map[string]any{"session_id": id}); err != nil {
			t.Fatalf("DeleteSession: %v\n%s", err, out)
		}
	}
	if _, err := os.Lstat(aWS); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("A's fresh workspace survived its session: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(bWS, "secret.txt")); err != nil || string(data) != canary {
		t.Errorf("B's canary after A's deletes: %q %v", data, err)
	}
	if out, err := a.call(ctx, "SessionService/DeleteSession", map[string]any{"session_id": aID}); err != nil {
		t.Errorf("repeated DeleteSession: %v\n%s", err, out)
	}
	if out, err := b.call(ctx, "SessionService/DeleteSession", map[string]any{"session_id": aID}); err == nil || !strings.Contains(out, "NotFound") {
		t.Errorf("B's delete of A's deleted session: %v\n%s", err, out)
	}
	// A session on the tenant's tree itself (a directory A named) leaves it.
	nID, _ := a.create(ctx, map[string]any{"workspace": atree})
	if out, err := a.call(ctx, "SessionService/DeleteSession", map[string]any{"session_id": nID}); err != nil {
		t.Fatalf("DeleteSession: %v\n%s", err, out)
	}
	if _, err := os.Stat(atree); err != nil {
		t.Errorf("a directory the caller named was removed: %v", err)
	}
}
