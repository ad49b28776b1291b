package mcp

import (
	"log/slog"
	"net/http"
	"time"
)

// Options tunes a Manager. Zero fields take the defaults.
type Options struct {
	// Operator holds the servers of toold's own settings file. Its HTTP and
	// SSE servers are connected once and shared by every session; its stdio
	// servers are started per session.
	Operator Config
	// WorkspaceConfig makes each session also read <workspace>/.mcp.json.
	// Its servers, of any transport, belong to that session alone. Only for
	// trusted workspaces: the file names commands toold will run.
	WorkspaceConfig bool
	// CallTimeout bounds one tool call (default 10 minutes).
	CallTimeout time.Duration
	// ConnectTimeout bounds starting a server, initializing it and listing
	// its tools (default 30 seconds).
	ConnectTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait before restarting a server
	// that died (default 1 second and 30 seconds; it doubles per failure in
	// a row). A server that stayed up for MaxBackoff starts again at
	// MinBackoff.
	MinBackoff, MaxBackoff time.Duration
	// MaxAttempts is how many failures in a row a server may have before it
	// is left failed until its next use (default 5).
	MaxAttempts int
	// HTTPTransport carries requests to remote servers (default
	// http.DefaultTransport).
	HTTPTransport http.RoundTripper
	// OnChange is called when the tools of a session's servers changed
	// (a tools/list_changed notification, a reconnect that listed different
	// tools). sessionID is "" for a shared server: every session's pool
	// changed. It must not block.
	OnChange func(sessionID string)
	// Version is reported to servers as the client version.
	Version string
	Logger  *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.CallTimeout <= 0 {
		o.CallTimeout = 10 * time.Minute
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 30 * time.Second
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(30*time.Second, o.MinBackoff)
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 5
	}
	if o.OnChange == nil {
		o.OnChange = func(string) {}
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// backoff is the wait before attempt n+1 after n failures in a row.
func (o *Options) backoff(failures int) time.Duration {
	d := o.MinBackoff
	for i := 1; i < failures && d < o.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, o.MaxBackoff)
}
