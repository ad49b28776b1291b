package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/toold/toold/client"
)

// globalConfig is the connection every command shares.
type globalConfig struct {
	Addr          string
	Token         string
	TLS           bool
	TLSCA         string
	TLSClientCert string
	TLSClientKey  string
	TLSServerName string
}

// envName is the variable a flag falls back to: --addr → TOOLD_ADDR.
func envName(flagName string) string {
	return "TOOLD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseGlobal parses the flags before the command and returns the rest.
func parseGlobal(args []string, getenv func(string) string) (*globalConfig, []string, error) {
	fs := flag.NewFlagSet("toolctl", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	var g globalConfig
	fs.StringVar(&g.Addr, "addr", "127.0.0.1:50051", "toold's gRPC address")
	fs.StringVar(&g.Token, "token", "", "bearer token (toold --auth token or jwt)")
	fs.BoolVar(&g.TLS, "tls", false, "connect with TLS (implied by the other --tls-* flags)")
	fs.StringVar(&g.TLSCA, "tls-ca", "", "PEM CA bundle toold's certificate chains to (default: system roots)")
	fs.StringVar(&g.TLSClientCert, "tls-client-cert", "", "PEM client certificate, for toold --auth mtls")
	fs.StringVar(&g.TLSClientKey, "tls-client-key", "", "PEM private key of --tls-client-cert")
	fs.StringVar(&g.TLSServerName, "tls-server-name", "", "name to verify toold's certificate against (default: the host of --addr)")
	if err := fs.Parse(args); err != nil {
		return nil, nil, usageError{fmt.Sprintf("%v\n%s", err, flagUsage(fs))}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if v := getenv(envName(f.Name)); v != "" && !set[f.Name] && envErr == nil {
			if err := f.Value.Set(v); err != nil {
				envErr = usageError{fmt.Sprintf("%s=%q: %v", envName(f.Name), v, err)}
			}
		}
	})
	if envErr != nil {
		return nil, nil, envErr
	}
	return &g, fs.Args(), nil
}

// options turns the flags into client options.
func (g *globalConfig) options() ([]client.Option, error) {
	var opts []client.Option
	if g.Token != "" {
		opts = append(opts, client.WithToken(g.Token))
	}
	if g.TLS || g.TLSCA != "" || g.TLSClientCert != "" || g.TLSClientKey != "" || g.TLSServerName != "" {
		cfg, err := client.TLSConfig(g.TLSCA, g.TLSClientCert, g.TLSClientKey, g.TLSServerName)
		if err != nil {
			return nil, usageError{"TLS: " + err.Error()}
		}
		opts = append(opts, client.WithTLS(cfg))
	}
	return opts, nil
}

func flagUsage(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(new(strings.Builder))
	return b.String()
}
