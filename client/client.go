package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Client talks to one toold. It is safe for concurrent use.
type Client struct {
	conn     *grpc.ClientConn // nil when built with New
	sessions tooldv1.SessionServiceClient
	tools    tooldv1.ToolServiceClient
	o        options
}

type options struct {
	tls      *tls.Config
	token    string
	dial     []grpc.DialOption
	backoff  Backoff
	attached bool
}

// Option configures Dial or New.
type Option func(*options)

// WithTLS serves the connection over TLS with cfg. Without it the
// connection is plaintext (a loopback or sidecar toold).
func WithTLS(cfg *tls.Config) Option { return func(o *options) { o.tls = cfg } }

// WithToken sends token as "authorization: bearer TOKEN" on every call
// (toold's --auth token and --auth jwt).
func WithToken(token string) Option { return func(o *options) { o.token = token } }

// WithDialOptions adds gRPC dial options (interceptors, a custom dialer).
func WithDialOptions(opts ...grpc.DialOption) Option {
	return func(o *options) { o.dial = append(o.dial, opts...) }
}

// WithBackoff replaces the retry schedule of Run and the session calls.
func WithBackoff(b Backoff) Option { return func(o *options) { o.backoff = b } }

// WithAttachedCalls sends Run's calls without the detached flag: cancelling
// the context then kills their processes at once, but a dropped connection
// kills them too (their retry gets the CANCELLED result, never a second
// run). By default calls are detached, so that a dropped stream resumes
// with the whole output; cancelling the context then cancels the calls
// with ToolService.Cancel (see Client.Cancel).
func WithAttachedCalls() Option { return func(o *options) { o.attached = true } }

// Dial connects to toold at target ("host:port", or any gRPC target).
// The connection is made lazily; the first call reports a bad address.
func Dial(target string, opts ...Option) (*Client, error) {
	o := newOptions(opts)
	creds := insecure.NewCredentials()
	if o.tls != nil {
		creds = credentials.NewTLS(o.tls)
	}
	dial := []grpc.DialOption{grpc.WithTransportCredentials(creds)}
	if o.token != "" {
		dial = append(dial, grpc.WithPerRPCCredentials(bearer{token: o.token, secure: o.tls != nil}))
	}
	conn, err := grpc.NewClient(target, append(dial, o.dial...)...)
	if err != nil {
		return nil, fmt.Errorf("toold client: %w", err)
	}
	c := newClient(conn, o)
	c.conn = conn
	return c, nil
}

// New makes a client on a connection the caller owns (Close does not close
// it). Options that shape the connection (TLS, token, dial options) are
// ignored; set them on conn.
func New(conn grpc.ClientConnInterface, opts ...Option) *Client {
	return newClient(conn, newOptions(opts))
}

func newOptions(opts []Option) options {
	o := options{backoff: DefaultBackoff}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

func newClient(conn grpc.ClientConnInterface, o options) *Client {
	return &Client{
		sessions: tooldv1.NewSessionServiceClient(conn),
		tools:    tooldv1.NewToolServiceClient(conn),
		o:        o,
	}
}

// Close closes the connection Dial made.
func (c *Client) Close() error {
	if c.conn == nil {
		return nil
	}
	return c.conn.Close()
}

// Sessions is the generated SessionService client, for the calls this
// package does not wrap (UpdateSession).
func (c *Client) Sessions() tooldv1.SessionServiceClient { return c.sessions }

// ToolService is the generated ToolService client (CheckPermission, raw
// Execute and Attach).
func (c *Client) ToolService() tooldv1.ToolServiceClient { return c.tools }

// TLSConfig builds a TLS configuration from PEM files: caFile (empty for
// the system roots), an optional client certificate for --auth mtls, and
// an optional server name that overrides the target's host.
func TLSConfig(caFile, certFile, keyFile, serverName string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate", caFile)
		}
		cfg.RootCAs = pool
	}
	if (certFile == "") != (keyFile == "") {
		return nil, errors.New("a client certificate needs both its certificate and its key")
	}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// bearer is the per-call token. Over plaintext it is still sent: a
// loopback or sidecar toold is the plaintext case, and refusing there would
// only push users to turn authentication off.
type bearer struct {
	token  string
	secure bool
}

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "bearer " + b.token}, nil
}

func (b bearer) RequireTransportSecurity() bool { return b.secure }

// CreateSession creates a session; req may be nil for a fresh workspace in
// the default mode.
func (c *Client) CreateSession(ctx context.Context, req *tooldv1.CreateSessionRequest) (*tooldv1.Session, error) {
	if req == nil {
		req = &tooldv1.CreateSessionRequest{}
	}
	// Not retried: a retry after a lost answer would make a second session.
	resp, err := c.sessions.CreateSession(ctx, req)
	return resp.GetSession(), err
}

// GetSession returns a session.
func (c *Client) GetSession(ctx context.Context, sessionID string) (*tooldv1.Session, error) {
	var resp *tooldv1.GetSessionResponse
	err := c.retry(ctx, func(ctx context.Context) (err error) {
		resp, err = c.sessions.GetSession(ctx, &tooldv1.GetSessionRequest{SessionId: sessionID})
		return err
	})
	return resp.GetSession(), err
}

// DeleteSession deletes a session and stops its calls.
func (c *Client) DeleteSession(ctx context.Context, sessionID string) error {
	return c.retry(ctx, func(ctx context.Context) error {
		_, err := c.sessions.DeleteSession(ctx, &tooldv1.DeleteSessionRequest{SessionId: sessionID})
		return err
	})
}

// CheckPermission returns the decision a call would get, without running it.
func (c *Client) CheckPermission(ctx context.Context, sessionID, tool string, input []byte) (*tooldv1.Decision, error) {
	var resp *tooldv1.CheckPermissionResponse
	err := c.retry(ctx, func(ctx context.Context) (err error) {
		resp, err = c.tools.CheckPermission(ctx, &tooldv1.CheckPermissionRequest{
			SessionId: sessionID,
			Call:      &tooldv1.ToolCall{Name: tool, InputJson: string(input)},
		})
		return err
	})
	return resp.GetDecision(), err
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
