package hooks

import (
	"fmt"
	"strings"
)

// verdict is one hook run read by the rules every event shares
// (https://code.claude.com/docs/en/hooks "Exit code output"):
//   - JSON on stdout is read whatever the exit code;
//   - exit 0 is success; plain stdout is kept (context for SessionStart);
//   - exit 2 is a blocking error, with the JSON reason or else stderr as
//     its message, even when the JSON says allow or does not fit the
//     schema;
//   - any other exit code is a non-blocking error, unless valid JSON
//     decides;
//   - a hook that did not run to an exit of its own failed.
type verdict struct {
	report Report
	// out is the hook's JSON output, nil when it printed none (or failed).
	out *output
	// plain is stdout that was not JSON, capped.
	plain string
	// blocking is exit 2; message holds its message, stderr the hook's
	// stderr as written (capped).
	blocking bool
	stderr   string
	// failed: see StatusFailed and StatusTimedOut.
	failed bool
}

func judge(run ran, ev Event) verdict {
	h := run.handler
	v := verdict{report: Report{
		Event: ev, Hook: h.Name(), Type: h.Type, Matcher: run.group.Matcher,
		Path: h.Path, Origin: h.Origin, StatusMessage: h.StatusMessage,
		ExitCode: run.exitCode, Started: run.started, Duration: run.duration,
	}}
	if run.async {
		v.report.Status = StatusAsync
		return v
	}
	if run.failure != nil {
		v.failed = true
		v.report.Status = StatusFailed
		if run.timedOut {
			v.report.Status = StatusTimedOut
		}
		v.report.Message = capText(run.failure.Error())
		return v
	}
	out, perr := run.out, error(nil)
	if out == nil {
		out, perr = parseStdout(run.stdout, ev)
	}
	stderr := strings.TrimSpace(string(run.stderr))
	switch {
	case run.exitCode == 2:
		v.blocking = true
		v.stderr = capText(string(run.stderr))
		v.report.Status = StatusBlocked
		v.out = out
		v.report.Message = capText(firstNonEmpty(out.reason(), stderr, "blocked by the hook "+h.Name()+" (exit code 2)"))
	case perr != nil:
		v.failed = true
		v.report.Status = StatusFailed
		v.report.Message = capText(perr.Error())
	case run.exitCode == 0:
		v.report.Status = StatusOK
		v.out = out
		if out == nil {
			v.plain = capText(strings.TrimSpace(string(run.stdout)))
			v.report.Message = v.plain
		}
	default:
		v.report.Status = StatusNonBlocking
		v.out = out
		if out == nil {
			v.report.Message = capText(fmt.Sprintf("Failed with non-blocking status code %d: %s", run.exitCode, firstLine(stderr)))
		}
	}
	if v.out != nil && v.report.Message == "" {
		v.report.Message = capText(v.out.reason())
	}
	return v
}

// reason is the JSON's own explanation of its decision.
func (o *output) reason() string {
	if o == nil {
		return ""
	}
	if s := o.Specific; s != nil {
		if s.PermissionDecisionReason != "" {
			return s.PermissionDecisionReason
		}
		if s.Decision != nil && s.Decision.Message != "" {
			return s.Decision.Message
		}
	}
	return o.Reason
}

// take collects what every event takes from a hook's JSON: its
// system message and a "continue": false.
func (c *Common) take(v verdict) {
	c.Reports = append(c.Reports, v.report)
	if v.out == nil {
		return
	}
	if v.out.SystemMessage != "" {
		c.SystemMessages = append(c.SystemMessages, capText(v.out.SystemMessage))
	}
	if v.out.Continue != nil && !*v.out.Continue && c.Stop == nil {
		c.Stop = &Stop{Reason: capText(v.out.StopReason), Hook: v.report.Hook}
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
