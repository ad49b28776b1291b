package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// addPprofFlags adds --pprof-listen: Go's profiling endpoints
// (/debug/pprof/), for profiling a running server under load. Off by
// default; a loopback address only, since a profile shows the server's
// memory and the endpoints have no authentication.
func addPprofFlags(fs *flag.FlagSet) func() (string, error) {
	listen := fs.String("pprof-listen", "", "loopback address of Go's profiling endpoints (/debug/pprof/), e.g. 127.0.0.1:6060; empty: none")
	return func() (string, error) {
		if *listen == "" {
			return "", nil
		}
		if err := loopbackAddr(*listen); err != nil {
			return "", fmt.Errorf("--pprof-listen %q: %w", *listen, err)
		}
		return *listen, nil
	}
}

// loopbackAddr accepts host:port whose host is a loopback IP or
// "localhost".
func loopbackAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return errors.New("want a loopback address (127.0.0.1, ::1 or localhost)")
	}
	return nil
}

// servePprof serves the profiling endpoints on addr until the returned
// function is called, and says where; nothing when addr is empty.
func servePprof(addr string, log *slog.Logger) (string, func(), error) {
	if addr == "" {
		return "", func() {}, nil
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("--pprof-listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(lis)
	log.Info("profiling endpoints listening", "addr", lis.Addr().String())
	return lis.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}
