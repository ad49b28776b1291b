package server

import (
	"time"

	"google.golang.org/grpc/keepalive"
)

// Connections bound how long one client connection lives, so that
// replicas an autoscaler adds get traffic: gRPC clients keep their HTTP/2
// connection, and through a ClusterIP Service every call of a connection
// goes to the replica it was opened to. After MaxAge (grpc-go adds ±10%
// jitter, so replicas started together do not all close at once) the
// server sends GOAWAY: the client opens a new connection, which the
// Service may place on another replica, for its next calls. Streams
// already running get MaxAgeGrace to finish; one that runs longer is cut,
// and its client picks the calls up with Attach.
type Connections struct {
	// MaxAge: 0 is no limit.
	MaxAge      time.Duration
	MaxAgeGrace time.Duration
}

// Defaults of --max-connection-age and --max-connection-age-grace: a
// connection is rebalanced about twice an hour; the grace outlasts Bash's
// longest timeout (10 minutes), so a running call is rarely cut.
const (
	DefaultMaxConnectionAge      = 30 * time.Minute
	DefaultMaxConnectionAgeGrace = 10 * time.Minute
)

// keepaliveParams are the server's keepalive parameters: pings to find
// dead peers, idle connections closed, and the connection age.
func (c Connections) keepaliveParams() keepalive.ServerParameters {
	p := keepalive.ServerParameters{
		MaxConnectionIdle: 30 * time.Minute,
		Time:              2 * time.Minute,
		Timeout:           20 * time.Second,
	}
	if c.MaxAge > 0 {
		p.MaxConnectionAge = c.MaxAge
		p.MaxConnectionAgeGrace = c.MaxAgeGrace
	}
	return p
}
