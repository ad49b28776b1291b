package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/toold/toold/internal/auth"
	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/mcp"
	"github.com/toold/toold/internal/mcpserver"
	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/toolpool"
)

// mcpConfig is MCP on both sides: the servers whose tools join the pool
// (mcpServers in --settings, and each workspace's .mcp.json when allowed),
// and toold's own MCP endpoint.
type mcpConfig struct {
	Listen          string
	AllowedOrigins  []string
	WorkspaceConfig bool
	CallTimeout     time.Duration
	ConnectTimeout  time.Duration
}

type mcpFlags struct {
	listen            *string
	origins           *string
	call, connect     *time.Duration
	workspaceSettings *bool
}

func addMCPFlags(fs *flag.FlagSet) *mcpFlags {
	return &mcpFlags{
		listen:            fs.String("mcp-listen", "", "address of toold's own MCP endpoint (streamable HTTP at /mcp), e.g. 127.0.0.1:7070; empty: none"),
		origins:           fs.String("mcp-allowed-origins", "", "comma-separated origins (scheme://host[:port]) whose browser pages may call the MCP endpoint, besides localhost's; a request with another Origin header is refused with 403"),
		workspaceSettings: fs.Bool("mcp-workspace-config", false, "also start the MCP servers of each workspace's .mcp.json (only for trusted workspaces: they are commands from the repository)"),
		call:              fs.Duration("mcp-call-timeout", 10*time.Minute, "how long an MCP tool call may run"),
		connect:           fs.Duration("mcp-connect-timeout", 30*time.Second, "how long an MCP server may take to start and list its tools"),
	}
}

func (f *mcpFlags) config() (mcpConfig, error) {
	c := mcpConfig{Listen: *f.listen, WorkspaceConfig: *f.workspaceSettings, CallTimeout: *f.call, ConnectTimeout: *f.connect}
	for _, o := range strings.Split(*f.origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return c, fmt.Errorf("--mcp-allowed-origins: %q is not an origin (scheme://host[:port])", o)
			}
			c.AllowedOrigins = append(c.AllowedOrigins, o)
		}
	}
	if c.Listen != "" {
		if _, _, err := net.SplitHostPort(c.Listen); err != nil {
			return c, fmt.Errorf("--mcp-listen %q: %w", c.Listen, err)
		}
	}
	if c.CallTimeout <= 0 || c.ConnectTimeout <= 0 {
		return c, errors.New("--mcp-call-timeout and --mcp-connect-timeout must be positive")
	}
	return c, nil
}

// newToolPool starts the MCP servers the operator configured and returns
// the source of every session's tool pool. Stop it with Close.
func newToolPool(cfg *config, reg *tool.Registry, log *slog.Logger) (*toolpool.Source, func(), error) {
	var operator mcp.Config
	if cfg.Settings != "" {
		var err error
		if operator, err = mcp.LoadFile(cfg.Settings, mcp.ScopeOperator, os.LookupEnv, false); err != nil {
			return nil, nil, configError{err}
		}
	}
	if len(operator.Servers) == 0 && !cfg.MCP.WorkspaceConfig {
		return toolpool.New(reg, nil, nil, cfg.ToolSearch.Threshold), func() {}, nil
	}
	mgr := mcp.NewManager(mcp.Options{
		Operator:        operator,
		WorkspaceConfig: cfg.MCP.WorkspaceConfig,
		CallTimeout:     cfg.MCP.CallTimeout,
		ConnectTimeout:  cfg.MCP.ConnectTimeout,
		Version:         version,
		Logger:          log.With("component", "mcp"),
	})
	mgr.Start()
	log.Info("MCP servers configured", "servers", len(operator.Servers), "workspace_config", cfg.MCP.WorkspaceConfig)
	return toolpool.New(reg, mgr, exec.ProcessEnviron(), cfg.ToolSearch.Threshold), mgr.Close, nil
}

// serveMCP serves toold's MCP endpoint on --mcp-listen until the returned
// stop is called; stop closes open MCP sessions first, whose streams would
// otherwise hold the HTTP server's shutdown.
func serveMCP(cfg *config, a auth.Authenticator, engine *exec.Engine, sessions *session.Manager, tools *server.ToolService, log *slog.Logger) (stop func(), err error) {
	if cfg.MCP.Listen == "" {
		return func() {}, nil
	}
	// The endpoint is plain HTTP: it takes bearer credentials (token, jwt)
	// and refuses to serve unauthenticated off loopback, as --listen does.
	if cfg.Auth.Mode == auth.ModeMTLS {
		return nil, configError{errors.New("--mcp-listen: the MCP endpoint has no TLS, so it cannot check client certificates; use --auth token or jwt, or leave --mcp-listen empty")}
	}
	if err := auth.CheckListen(cfg.MCP.Listen, cfg.Auth.Mode, cfg.Auth.InsecureNoAuth); err != nil {
		return nil, configError{fmt.Errorf("--mcp-listen: %w", err)}
	}
	backend := server.NewMCPBackend(engine, sessions, tools.Definitions)
	h := mcpserver.New(backend, mcpserver.Options{Version: version, AllowedOrigins: cfg.MCP.AllowedOrigins, Logger: log.With("component", "mcp-endpoint")})
	lis, err := net.Listen("tcp", cfg.MCP.Listen)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.HTTPAuth(a, h))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(lis)
	log.Info("MCP endpoint listening", "addr", lis.Addr().String(), "path", "/mcp")
	return func() {
		h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}
