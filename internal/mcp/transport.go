package mcp

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/procgroup"
)

// stdioCommand builds the process of a stdio server: in the session's
// workspace, with the session's environment plus the configured variables,
// in a process group of its own so that stopping it also stops what it
// started (npx starts node, uvx starts python).
func stdioCommand(cfg ServerConfig, dir string, environ []string) (*exec.Cmd, error) {
	env := append([]string(nil), environ...)
	for _, k := range sortedKeys(cfg.Env) {
		env = append(env, k+"="+cfg.Env[k])
	}
	path, err := lookPath(cfg.Command, env)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, cfg.Args...)
	cmd.Args[0] = cfg.Command
	cmd.Dir = dir
	cmd.Env = env
	procgroup.Prepare(cmd, 0)
	return cmd, nil
}

// lookPath finds a bare command name on the PATH the server will have, not
// on toold's own. Names with a slash are left to exec, relative to the
// workspace.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	pathVar := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			pathVar = v
		}
	}
	for _, dir := range filepath.SplitList(pathVar) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("command %q not found on the server's PATH (%s)", name, pathVar)
}

// killGroup stops whatever is left of a stdio server's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	// A group already gone is the usual outcome and needs no report.
	_ = procgroup.Kill(cmd.Process.Pid)
}

// httpTransport builds the client side of a remote server, with the
// configured headers on every request.
func httpTransport(cfg ServerConfig, base http.RoundTripper) sdk.Transport {
	if base == nil {
		base = http.DefaultTransport
	}
	client := &http.Client{Transport: &headerTransport{base: base, headers: cfg.Headers}}
	if cfg.Transport == SSE {
		return &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}
	}
	return &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}
}

type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(req)
}
