package classifier

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// GRPCOptions name a toold.v1.ClassifierService, dialled like a gRPC hook.
type GRPCOptions struct {
	// Endpoint is the address (host:port, or any gRPC target).
	Endpoint string
	// Insecure dials without TLS; otherwise TLS with the system's roots,
	// or CAFile's. ServerName overrides the name the certificate carries.
	Insecure   bool
	CAFile     string
	ServerName string
	// Headers are sent as metadata with every call (a token).
	Headers     map[string]string
	DialOptions []grpc.DialOption
}

// GRPC is a ClassifierService backend. The connection is made lazily by
// gRPC and shared by every call.
type GRPC struct {
	opts GRPCOptions
	conn *grpc.ClientConn
	c    tooldv1.ClassifierServiceClient
}

// NewGRPC prepares the connection; it does not wait for the service.
func NewGRPC(opts GRPCOptions) (*GRPC, error) {
	if opts.Endpoint == "" {
		return nil, errors.New("classifier: no endpoint")
	}
	creds, err := credentialsOf(opts)
	if err != nil {
		return nil, err
	}
	conn, err := grpc.NewClient(opts.Endpoint, append([]grpc.DialOption{grpc.WithTransportCredentials(creds)}, opts.DialOptions...)...)
	if err != nil {
		return nil, fmt.Errorf("classifier %s: %w", opts.Endpoint, err)
	}
	return &GRPC{opts: opts, conn: conn, c: tooldv1.NewClassifierServiceClient(conn)}, nil
}

func credentialsOf(o GRPCOptions) (credentials.TransportCredentials, error) {
	if o.Insecure {
		return insecure.NewCredentials(), nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: o.ServerName}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("classifier CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("classifier CA file %s holds no PEM certificate", o.CAFile)
		}
		cfg.RootCAs = pool
	}
	return credentials.NewTLS(cfg), nil
}

// Classify calls ClassifierService.Classify.
func (g *GRPC) Classify(ctx context.Context, req *tooldv1.ClassifyRequest) (*tooldv1.ClassifyResponse, error) {
	if len(g.opts.Headers) > 0 {
		ctx = metadata.NewOutgoingContext(ctx, metadata.New(g.opts.Headers))
	}
	resp, err := g.c.Classify(ctx, req)
	if err != nil {
		st := status.Convert(err)
		if st.Code() == codes.DeadlineExceeded {
			// The deadline travels with the call: the service may give
			// up a moment before the local timer fires.
			return nil, fmt.Errorf("Classify: %w", context.DeadlineExceeded)
		}
		return nil, fmt.Errorf("Classify: %s: %s", st.Code(), st.Message())
	}
	return resp, nil
}

// Name is the endpoint.
func (g *GRPC) Name() string { return "grpc://" + g.opts.Endpoint }

// Close closes the connection.
func (g *GRPC) Close() error { return g.conn.Close() }
