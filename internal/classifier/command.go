package classifier

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	"github.com/toold/toold/internal/procgroup"
	"github.com/toold/toold/internal/strictjson"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// DefaultMaxOutput bounds what a classifier command may print.
const DefaultMaxOutput = 64 << 10

// CommandOptions name a classifier program.
type CommandOptions struct {
	// Path and Args: the program, run without a shell.
	Path string
	Args []string
	// Env is its environment (default: PATH, HOME, LANG and TMPDIR of
	// toold's, nothing else: toold's secrets are not its business).
	Env []string
	// MaxOutput bounds stdout and stderr each (default DefaultMaxOutput);
	// a program writing more is killed and counts as failed.
	MaxOutput int
}

// Command runs a program per call: the ClassifyRequest as JSON on stdin
// (the proto field names), one JSON object on stdout,
// {"verdict": "allow" | "deny" | "ask", "reason": "..."}, exit status 0.
// The program runs in its own process group, killed as a whole when it
// exits, times out or writes too much.
type Command struct{ opts CommandOptions }

// NewCommand checks that the program exists.
func NewCommand(opts CommandOptions) (*Command, error) {
	if opts.Path == "" {
		return nil, errors.New("classifier: no command")
	}
	p, err := exec.LookPath(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("classifier command: %w", err)
	}
	opts.Path = p
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.Env == nil {
		for _, k := range []string{"PATH", "HOME", "LANG", "TMPDIR"} {
			if v, ok := os.LookupEnv(k); ok {
				opts.Env = append(opts.Env, k+"="+v)
			}
		}
	}
	return &Command{opts: opts}, nil
}

var errOverflow = errors.New("output too long")

// Classify runs the program once.
func (c *Command) Classify(ctx context.Context, req *tooldv1.ClassifyRequest) (*tooldv1.ClassifyResponse, error) {
	payload, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	cmd := exec.CommandContext(runCtx, c.opts.Path, c.opts.Args...)
	cmd.Env = c.opts.Env
	cmd.Stdin = bytes.NewReader(payload)
	stdout := &procgroup.Capped{Limit: c.opts.MaxOutput, Overflow: func() { stop(errOverflow) }}
	stderr := &procgroup.Capped{Limit: c.opts.MaxOutput, Overflow: func() { stop(errOverflow) }}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	procgroup.Prepare(cmd, time.Second)
	if err := procgroup.Start(cmd); err != nil {
		return nil, fmt.Errorf("could not start %s: %w", c.opts.Path, err)
	}
	waitErr := procgroup.Wait(cmd)
	switch cause := context.Cause(runCtx); {
	case errors.Is(cause, errOverflow):
		return nil, fmt.Errorf("killed: its output passed %d bytes", c.opts.MaxOutput)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("killed: %w", ctx.Err())
	case waitErr != nil:
		return nil, fmt.Errorf("%v: %s", waitErr, firstLine(stderr.String()))
	}
	return parseAnswer(stdout.Bytes())
}

// answer is the JSON a classifier command prints.
type answer struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
}

var verdicts = map[string]tooldv1.ClassifierVerdict{
	"allow": tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_ALLOW,
	"deny":  tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_DENY,
	"ask":   tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_ASK,
}

// parseAnswer reads the program's stdout strictly: one JSON object with
// known keys and a known verdict. Anything else is a failure (so, ask).
func parseAnswer(out []byte) (*tooldv1.ClassifyResponse, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return nil, errors.New("it printed nothing")
	}
	if err := strictjson.Check(out); err != nil {
		return nil, fmt.Errorf("its output is not one JSON object: %v", err)
	}
	var a answer
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("its output does not fit {\"verdict\", \"reason\"}: %v", err)
	}
	v, ok := verdicts[a.Verdict]
	if !ok {
		return nil, fmt.Errorf("its verdict %q is not allow, deny or ask", a.Verdict)
	}
	return &tooldv1.ClassifyResponse{Verdict: v, Reason: a.Reason}, nil
}

// Name is the program.
func (c *Command) Name() string {
	return strings.Join(append([]string{c.opts.Path}, c.opts.Args...), " ")
}

// Close has nothing to release: each call's process is gone when it returns.
func (c *Command) Close() error { return nil }

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return bounded(s, 200)
}
