package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options tune the endpoint. Zero fields take the defaults.
type Options struct {
	// SessionTimeout closes an MCP session that sent nothing for this long
	// (default 30 minutes), ending the toold session created for it.
	SessionTimeout time.Duration
	// Version is reported as the server version.
	Version string
	Logger  *slog.Logger
	// AllowedOrigins are the origins (scheme://host[:port]) a browser
	// page may call the endpoint from, besides localhost's. A request with
	// any other Origin header is refused with 403, as the MCP transport
	// specification requires against DNS rebinding; a request without one
	// (not from a browser) is served.
	AllowedOrigins []string
}

// Handler is the MCP endpoint, an http.Handler for --mcp-listen.
type Handler struct {
	backend Backend
	log     *slog.Logger
	http    *sdk.StreamableHTTPHandler
	origins map[string]bool

	mu       sync.Mutex
	bindings map[string]binding // by MCP session id
	closed   bool
	watchers sync.WaitGroup
}

// binding ties an MCP session to a toold session.
type binding struct {
	sessionID string
	created   bool // ended with the MCP session
	mcp       *sdk.ServerSession
	// values is the initialize request's context without its deadline:
	// ending the session needs what it carries (the caller's tenant, whose
	// session it is), long after the request ended.
	values context.Context
}

// New builds the endpoint over a backend.
func New(b Backend, opts Options) *Handler {
	if opts.SessionTimeout <= 0 {
		opts.SessionTimeout = 30 * time.Minute
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &Handler{backend: b, log: opts.Logger, bindings: map[string]binding{}, origins: map[string]bool{}}
	for _, o := range opts.AllowedOrigins {
		h.origins[strings.ToLower(strings.TrimSuffix(o, "/"))] = true
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "toold", Version: opts.Version}, &sdk.ServerOptions{
		Logger: opts.Logger,
		// Tools are the session's; the SDK's own tool registry stays empty.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
	})
	srv.AddReceivingMiddleware(h.route)
	// Stateful: an MCP session lives across requests, which is what binds
	// it to a toold session and lets a call in progress ask its client.
	h.http = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{SessionTimeout: opts.SessionTimeout, Logger: opts.Logger})
	return h
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && !h.originAllowed(o) {
		h.log.Warn("mcp request from a foreign origin refused", "origin", o)
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return
	}
	h.http.ServeHTTP(w, r)
}

// originAllowed: localhost's pages (any port, http or https) and the
// configured origins.
func (h *Handler) originAllowed(origin string) bool {
	if h.origins[strings.ToLower(origin)] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.User != nil {
		return false
	}
	switch strings.ToLower(u.Hostname()) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// route answers initialize, tools/list and tools/call for the toold
// session of the MCP session; the SDK answers the rest of the protocol.
func (h *Handler) route(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch r := req.(type) {
		case *sdk.ServerRequest[*sdk.InitializeParams]:
			return h.initialize(ctx, next, method, r)
		case *sdk.ListToolsRequest:
			return h.listTools(ctx, r)
		case *sdk.CallToolRequest:
			return h.callTool(ctx, r)
		}
		return next(ctx, method, req)
	}
}

// initialize binds the MCP session before the SDK completes the handshake,
// so that a client naming an unknown session gets an error and no session.
func (h *Handler) initialize(ctx context.Context, next sdk.MethodHandler, method string, r *sdk.ServerRequest[*sdk.InitializeParams]) (sdk.Result, error) {
	ss := r.Session
	var hdr http.Header
	if r.Extra != nil {
		hdr = r.Extra.Header
	}
	b, err := h.open(ctx, hdr, r.Params)
	if err != nil {
		return nil, err
	}
	res, err := next(ctx, method, r)
	if err != nil {
		h.release(b)
		return nil, err
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.release(b)
		return nil, errors.New("the MCP endpoint is shutting down")
	}
	b.mcp = ss
	h.bindings[ss.ID()] = b
	h.watchers.Add(1)
	h.mu.Unlock()
	h.log.Info("mcp client session opened", "mcp_session", ss.ID(), "session_id", b.sessionID, "created", b.created)
	go h.watch(ss, b)
	return res, nil
}

// open finds or creates the toold session an initialize asks for.
func (h *Handler) open(ctx context.Context, hdr http.Header, p *sdk.InitializeParams) (binding, error) {
	if id := hdr.Get(SessionHeader); id != "" {
		if _, err := h.backend.ListTools(ctx, id); err != nil {
			return binding{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("session %s: %v", id, err)}
		}
		return binding{sessionID: id, values: context.WithoutCancel(ctx)}, nil
	}
	req := SessionRequest{Workspace: hdr.Get(WorkspaceHeader), PermissionMode: hdr.Get(ModeHeader)}
	if p != nil && p.ClientInfo != nil {
		req.ClientName, req.ClientVersion = p.ClientInfo.Name, p.ClientInfo.Version
	}
	id, err := h.backend.CreateSession(ctx, req)
	if err != nil {
		return binding{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "creating a session: " + err.Error()}
	}
	return binding{sessionID: id, created: true, values: context.WithoutCancel(ctx)}, nil
}

// watch ends what the MCP session held once it is closed.
func (h *Handler) watch(ss *sdk.ServerSession, b binding) {
	defer h.watchers.Done()
	_ = ss.Wait()
	h.mu.Lock()
	delete(h.bindings, ss.ID())
	h.mu.Unlock()
	h.log.Info("mcp client session closed", "mcp_session", ss.ID(), "session_id", b.sessionID)
	h.release(b)
}

func (h *Handler) release(b binding) {
	if !b.created {
		return
	}
	parent := b.values
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, 30*time.Second)
	defer cancel()
	if err := h.backend.EndSession(ctx, b.sessionID); err != nil {
		h.log.Warn("ending the session of an mcp client failed", "session_id", b.sessionID, "error", err.Error())
	}
}

func (h *Handler) sessionOf(ss *sdk.ServerSession) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, ok := h.bindings[ss.ID()]
	if !ok {
		return "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "this MCP session is bound to no toold session"}
	}
	return b.sessionID, nil
}

func (h *Handler) listTools(ctx context.Context, r *sdk.ListToolsRequest) (sdk.Result, error) {
	id, err := h.sessionOf(r.Session)
	if err != nil {
		return nil, err
	}
	defs, err := h.backend.ListTools(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &sdk.ListToolsResult{Tools: make([]*sdk.Tool, 0, len(defs))}
	for _, d := range defs {
		out.Tools = append(out.Tools, &sdk.Tool{Name: d.Name, Description: d.Description, InputSchema: d.InputSchema, Annotations: annotations(d.Name)})
	}
	return out, nil
}

func (h *Handler) callTool(ctx context.Context, r *sdk.CallToolRequest) (sdk.Result, error) {
	id, err := h.sessionOf(r.Session)
	if err != nil {
		return nil, err
	}
	input := r.Params.Arguments
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage(`{}`)
	}
	useID := newToolUseID()
	res, err := h.backend.Call(ctx, id, useID, r.Params.Name, input, askerFor(r.Session))
	if err != nil {
		return nil, err
	}
	return resultToMCP(useID, res), nil
}

// newToolUseID names a call the way the Messages API names tool uses, so
// that logs and hooks see the same shape as from any other client.
func newToolUseID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "toolu_mcp_" + hex.EncodeToString(b[:])
}

// Close ends every MCP session and the toold sessions created for them.
// Call it after the HTTP server stopped accepting requests.
func (h *Handler) Close() {
	h.mu.Lock()
	h.closed = true
	open := make([]*sdk.ServerSession, 0, len(h.bindings))
	for _, b := range h.bindings {
		open = append(open, b.mcp)
	}
	h.mu.Unlock()
	// Closing an MCP session ends its watch, which ends the toold session
	// created for it.
	for _, ss := range open {
		_ = ss.Close()
	}
	h.watchers.Wait()
}
