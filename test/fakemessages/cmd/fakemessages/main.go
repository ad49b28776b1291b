// Command fakemessages serves a scripted Messages API on a loopback port for
// the example agent loops: fakemessages --script FILE [--listen ADDR]. It
// prints "listening on http://ADDR" once it accepts connections and serves
// until it is killed (or, with --stdin-lifeline, its standard input closes).
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/toold/toold/test/fakemessages"
)

func main() {
	script := flag.String("script", "", "JSON file of scripted assistant turns ({\"turns\": [...]})")
	listen := flag.String("listen", "127.0.0.1:0", "loopback address to serve on")
	lifeline := flag.Bool("stdin-lifeline", false, "exit when standard input closes (a parent that dies closes it)")
	flag.Parse()
	if *script == "" {
		fmt.Fprintln(os.Stderr, "fakemessages: --script is required")
		os.Exit(2)
	}
	s, err := fakemessages.LoadScript(*script)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakemessages:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakemessages:", err)
		os.Exit(1)
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	if *lifeline {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
	}
	if err := http.Serve(ln, fakemessages.New(s.Turns)); err != nil {
		fmt.Fprintln(os.Stderr, "fakemessages:", err)
		os.Exit(1)
	}
}
