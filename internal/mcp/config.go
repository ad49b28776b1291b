package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Transport is how toold talks to a server.
type Transport string

const (
	// Stdio servers are programs toold starts, one per session.
	Stdio Transport = "stdio"
	// HTTP servers speak streamable HTTP at a URL.
	HTTP Transport = "http"
	// SSE servers speak the older HTTP+SSE transport at a URL.
	SSE Transport = "sse"
)

// Scope says where a server's configuration came from, which decides
// whether it is shared between sessions.
type Scope string

const (
	// ScopeOperator servers come from toold's own settings file.
	ScopeOperator Scope = "operator"
	// ScopeWorkspace servers come from a workspace's .mcp.json.
	ScopeWorkspace Scope = "workspace"
)

// ServerConfig is one entry of "mcpServers", with ${VAR} references
// already expanded.
type ServerConfig struct {
	// Name is the key in "mcpServers"; Prefix is the name as it appears in
	// tool names (see NormalizeName).
	Name   string
	Prefix string
	Transport
	Scope Scope

	// Stdio.
	Command string
	Args    []string
	Env     map[string]string

	// HTTP and SSE.
	URL     string
	Headers map[string]string
}

// Config is a parsed "mcpServers" object, sorted by name.
type Config struct {
	Servers []ServerConfig
}

// ConfigError is a configuration problem: Origin names the file, Path the
// JSON path inside it ("mcpServers.github.url").
type ConfigError struct {
	Origin string
	Path   string
	Reason string
}

func (e *ConfigError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("%s: %s", e.Origin, e.Reason)
	}
	return fmt.Sprintf("%s: %s: %s", e.Origin, e.Path, e.Reason)
}

// LookupEnv resolves ${VAR} references in a configuration. The operator's
// settings may read toold's own environment (os.LookupEnv); a workspace's
// .mcp.json must not, or a repository could send toold's secrets to a URL
// it names, so its caller passes the session's environment instead.
type LookupEnv func(name string) (string, bool)

// maxConfigSize bounds a configuration file; real ones are a few kilobytes.
const maxConfigSize = 1 << 20

// WorkspaceFile is the name of a workspace's MCP configuration.
const WorkspaceFile = ".mcp.json"

// LoadFile reads the "mcpServers" object of a settings file or .mcp.json.
// A missing file is an empty configuration when optional is true.
func LoadFile(path string, scope Scope, env LookupEnv, optional bool) (Config, error) {
	// O_NONBLOCK: a FIFO planted in the file's place must not stall toold.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if optional && errors.Is(err, os.ErrNotExist) {
			return Config{}, nil
		}
		return Config{}, &ConfigError{Origin: path, Reason: err.Error()}
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return Config{}, &ConfigError{Origin: path, Reason: "not a regular file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return Config{}, &ConfigError{Origin: path, Reason: err.Error()}
	}
	if len(data) > maxConfigSize {
		return Config{}, &ConfigError{Origin: path, Reason: fmt.Sprintf("larger than %d bytes", maxConfigSize)}
	}
	return ParseConfig(data, path, scope, env)
}

// LoadWorkspace reads dir/.mcp.json; a workspace without one has no servers.
func LoadWorkspace(dir string, env LookupEnv) (Config, error) {
	return LoadFile(filepath.Join(dir, WorkspaceFile), ScopeWorkspace, env, true)
}

// ParseConfig parses the "mcpServers" object of a JSON document; other
// top-level keys belong to other readers of the same file and are ignored.
// Inside "mcpServers" every key must be understood: a field toold would
// ignore (oauth, headersHelper) is an error naming where it is, because the
// server would otherwise start without what its author relied on.
func ParseConfig(data []byte, origin string, scope Scope, env LookupEnv) (Config, error) {
	fail := func(path, format string, args ...any) (Config, error) {
		return Config{}, &ConfigError{Origin: origin, Path: path, Reason: fmt.Sprintf(format, args...)}
	}
	if !utf8.Valid(data) {
		return fail("", "not valid UTF-8")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return fail("", "must be a JSON object")
	}
	raw, ok := top["mcpServers"]
	if !ok {
		for k := range top {
			if strings.EqualFold(k, "mcpServers") {
				return fail(k, "did you mean \"mcpServers\"? (keys are case-sensitive)")
			}
		}
		return Config{}, nil
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil || servers == nil {
		return fail("mcpServers", "must be an object of server names")
	}
	if env == nil {
		env = func(string) (string, bool) { return "", false }
	}
	var cfg Config
	byPrefix := map[string]string{}
	for _, name := range sortedKeys(servers) {
		path := "mcpServers." + name
		s, err := parseServer(name, servers[name], path, env)
		if err != nil {
			return fail(err.path, "%s", err.reason)
		}
		s.Scope = scope
		if other, dup := byPrefix[s.Prefix]; dup {
			return fail(path, "servers %q and %q both become mcp__%s__ in tool names; rename one", other, name, s.Prefix)
		}
		byPrefix[s.Prefix] = name
		cfg.Servers = append(cfg.Servers, s)
	}
	return cfg, nil
}

type fieldError struct{ path, reason string }

// serverKeys lists what each transport's entry may hold.
var serverKeys = map[Transport][]string{
	Stdio: {"type", "command", "args", "env"},
	HTTP:  {"type", "url", "headers"},
	SSE:   {"type", "url", "headers"},
}

func parseServer(name string, raw json.RawMessage, path string, env LookupEnv) (ServerConfig, *fieldError) {
	bad := func(sub, format string, args ...any) (ServerConfig, *fieldError) {
		return ServerConfig{}, &fieldError{path: path + sub, reason: fmt.Sprintf(format, args...)}
	}
	s := ServerConfig{Name: name, Prefix: NormalizeName(name)}
	if name == "" {
		return bad("", "empty server name")
	}
	if strings.Contains(s.Prefix, "__") {
		return bad("", "a server name may not contain \"__\": permission rules mcp__<server>__<tool> could not tell server from tool")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return bad("", "must be an object")
	}
	s.Transport = Stdio
	if t, ok := fields["type"]; ok {
		var typ string
		if json.Unmarshal(t, &typ) != nil {
			return bad(".type", "must be a string")
		}
		switch Transport(typ) {
		case Stdio, HTTP, SSE:
			s.Transport = Transport(typ)
		case "streamable-http", "streamableHttp":
			s.Transport = HTTP
		default:
			return bad(".type", "unsupported transport %q (toold runs \"stdio\", \"http\" and \"sse\" servers)", typ)
		}
	} else if _, hasURL := fields["url"]; hasURL {
		return bad(".type", "a server with a url needs \"type\": \"http\" (or \"sse\")")
	}
	for _, k := range sortedKeys(fields) {
		if !slices.Contains(serverKeys[s.Transport], k) {
			return bad("."+k, "unknown key for a %s server (known: %s)", s.Transport, strings.Join(serverKeys[s.Transport], ", "))
		}
	}
	var err *fieldError
	if s.Transport == Stdio {
		if s.Command, err = stringField(fields, "command", path, env, true); err != nil {
			return ServerConfig{}, err
		}
		if s.Args, err = stringList(fields, "args", path, env); err != nil {
			return ServerConfig{}, err
		}
		if s.Env, err = stringMap(fields, "env", path, env); err != nil {
			return ServerConfig{}, err
		}
		for k := range s.Env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				return bad(".env", "%q is not an environment variable name", k)
			}
		}
		return s, nil
	}
	if s.URL, err = stringField(fields, "url", path, env, true); err != nil {
		return ServerConfig{}, err
	}
	if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
		return bad(".url", "must be an http:// or https:// URL")
	}
	if s.Headers, err = stringMap(fields, "headers", path, env); err != nil {
		return ServerConfig{}, err
	}
	return s, nil
}

func stringField(fields map[string]json.RawMessage, key, path string, env LookupEnv, required bool) (string, *fieldError) {
	raw, ok := fields[key]
	if !ok {
		if required {
			return "", &fieldError{path: path + "." + key, reason: "required"}
		}
		return "", nil
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", &fieldError{path: path + "." + key, reason: "must be a string"}
	}
	if required && v == "" {
		return "", &fieldError{path: path + "." + key, reason: "must not be empty"}
	}
	out, err := expand(v, env)
	if err != nil {
		return "", &fieldError{path: path + "." + key, reason: err.Error()}
	}
	return out, nil
}

func stringList(fields map[string]json.RawMessage, key, path string, env LookupEnv) ([]string, *fieldError) {
	raw, ok := fields[key]
	if !ok {
		return nil, nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, &fieldError{path: path + "." + key, reason: "must be an array of strings"}
	}
	out := make([]string, len(items))
	for i, it := range items {
		p := fmt.Sprintf("%s.%s[%d]", path, key, i)
		var v string
		if json.Unmarshal(it, &v) != nil {
			return nil, &fieldError{path: p, reason: "must be a string"}
		}
		var err error
		if out[i], err = expand(v, env); err != nil {
			return nil, &fieldError{path: p, reason: err.Error()}
		}
	}
	return out, nil
}

func stringMap(fields map[string]json.RawMessage, key, path string, env LookupEnv) (map[string]string, *fieldError) {
	raw, ok := fields[key]
	if !ok {
		return nil, nil
	}
	var items map[string]json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return nil, &fieldError{path: path + "." + key, reason: "must be an object of strings"}
	}
	out := make(map[string]string, len(items))
	for _, k := range sortedKeys(items) {
		p := path + "." + key + "." + k
		var v string
		if json.Unmarshal(items[k], &v) != nil {
			return nil, &fieldError{path: p, reason: "must be a string"}
		}
		var err error
		if out[k], err = expand(v, env); err != nil {
			return nil, &fieldError{path: p, reason: err.Error()}
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
