package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/toold/toold/internal/server"
)

// connectionFlags are --max-connection-age and --max-connection-age-grace:
// how long a client connection lives before GOAWAY sends the client to
// the Service again, so replicas an autoscaler adds get their share.
type connectionFlags struct{ age, grace *time.Duration }

func addConnectionFlags(fs *flag.FlagSet) connectionFlags {
	return connectionFlags{
		age: fs.Duration("max-connection-age", server.DefaultMaxConnectionAge,
			"close client connections after about this long (GOAWAY, ±10% jitter) so that clients reconnect and new replicas get traffic; 0: never"),
		grace: fs.Duration("max-connection-age-grace", server.DefaultMaxConnectionAgeGrace,
			"after --max-connection-age, how long running streams may finish before the connection is closed (clients resume calls with Attach)"),
	}
}

func (f connectionFlags) config() (server.Connections, error) {
	c := server.Connections{MaxAge: *f.age, MaxAgeGrace: *f.grace}
	if c.MaxAge < 0 {
		return c, fmt.Errorf("--max-connection-age %s: want 0 (never) or a positive duration", c.MaxAge)
	}
	if c.MaxAge > 0 && c.MaxAgeGrace <= 0 {
		return c, fmt.Errorf("--max-connection-age-grace %s: want a positive duration (running streams would be cut at once)", c.MaxAgeGrace)
	}
	return c, nil
}
