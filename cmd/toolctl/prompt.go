package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/client"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// prompter asks the person at the terminal about a call.
type prompter struct {
	io stdio
	in *bufio.Reader
}

func newPrompter(io stdio) *prompter { return &prompter{io: io, in: bufio.NewReader(io.in)} }

// interactive reports whether the input is a terminal: without one nobody
// can answer, and reading a script's stdin as answers would be a surprise.
func (p *prompter) interactive() bool {
	f, ok := p.io.in.(*os.File)
	if !ok {
		return false
	}
	// /dev/null is a character device too: ask the terminal driver.
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

func (p *prompter) ask(_ context.Context, _ string, req *tooldv1.PermissionRequest) client.Answer {
	if !p.interactive() {
		return client.Deny("denied: toolctl has no terminal to ask on (use --approve-all or --deny-all)")
	}
	in, _ := json.Marshal(req.GetInput().AsMap())
	fmt.Fprintf(p.io.err, "\n%s wants to run %s\n", req.GetToolName(), in)
	fmt.Fprintf(p.io.err, "  %s\n", describe(req.GetDecision()))
	if len(req.GetSuggestedRules()) > 0 {
		fmt.Fprintf(p.io.err, "  for the session this allows: %s\n", strings.Join(req.GetSuggestedRules(), ", "))
	}
	for {
		fmt.Fprint(p.io.err, "allow [o]nce / allow for [s]ession / [d]eny [message]? ")
		line, err := p.in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(p.io.err)
			return client.Deny("denied: the terminal closed before an answer")
		}
		word, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch strings.ToLower(word) {
		case "o", "once", "y", "yes":
			return client.AllowOnce()
		case "s", "session":
			return client.AllowForSession()
		case "d", "deny", "n", "no":
			return client.Deny(strings.TrimSpace(rest))
		}
		fmt.Fprintln(p.io.err, "answer o, s, or d followed by an optional message")
	}
}
