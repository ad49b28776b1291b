package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/toold/toold/internal/claudecode"
)

var (
	updateKnown = flag.Bool("update-known", false, "rewrite known_differences.json with the calls that differ now")
	reportPath  = flag.String("report", "", "write every compared call, both sides in full, to this JSON file")
	suiteName   = flag.String("suite", "", "run only the suite of this name (worktree_resume, host_worktree, plain, ...); the known list is then checked for its calls alone")
)

// suite is a case file with the fixture Claude Code's answers were
// recorded into.
type suite struct {
	name     string
	cases    string
	fixture  string
	denyText string // the host's deny message; "" for a plain -p run
}

// hostDenyText is what the oracle's host answers every prompt with when a
// suite is recorded in host mode.
const hostDenyText = "Denied by the oracle host."

// findSuites lists the suites in dir: each cases<name>.json is recorded as
// a plain `claude -p` run into expected<name>.json, each
// host_cases<name>.json in host mode into expected_host<name>.json. Cases
// live in several files so that each area's calls can be added and
// re-recorded on their own.
func findSuites(dir string) ([]suite, error) {
	var out []suite
	for _, kind := range []struct{ prefix, fixture, deny string }{
		{"cases", "expected", ""},
		{"host_cases", "expected_host", hostDenyText},
	} {
		names, err := filepath.Glob(filepath.Join(dir, kind.prefix+"*.json"))
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			rest := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(n), kind.prefix), ".json")
			name := strings.TrimPrefix(kind.fixture+rest, "expected_")
			if name == "expected" {
				name = "plain"
			}
			out = append(out, suite{name: name, cases: filepath.Base(n), fixture: kind.fixture + rest + ".json", denyText: kind.deny})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no cases*.json in %s", dir)
	}
	return out, nil
}

// fixture is what record.py writes.
type fixture struct {
	ClaudeCodeVersion string `json:"claude_code_version"`
	HostPrompts       string `json:"host_prompts"`
	DenyMessage       string `json:"deny_message"`
	Calls             []struct {
		Key       string      `json:"key"`
		Tool      string      `json:"tool"`
		ToolUseID string      `json:"tool_use_id"`
		Decision  string      `json:"decision"`
		Result    *normResult `json:"result"`
	} `json:"calls"`
}

const knownFile = "known_differences.json"

// row is one compared call.
type row struct {
	Key        string      `json:"key"`
	Tool       string      `json:"tool"`
	Same       bool        `json:"same"`
	Why        string      `json:"why,omitempty"`
	CCDecision string      `json:"cc_decision"`
	TDecision  string      `json:"toold_decision"`
	CC         *normResult `json:"cc"`
	Toold      *normResult `json:"toold"`
	Error      string      `json:"error,omitempty"`
}

// TestConformance runs every case of the suites through a built toold and
// compares each call's normalised tool_result and permission decision with
// what Claude Code gave. known_differences.json is a ratchet: a listed call
// that now matches fails the test (take it off the list), and so does an
// unlisted call that differs.
func TestConformance(t *testing.T) {
	base, err := os.MkdirTemp("", "toold-conformance")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	// toold's sandbox runs commands as another user, who must pass
	// through every directory above the workspaces.
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	suites, err := findSuites(".")
	if err != nil {
		t.Fatal(err)
	}
	var rows []row
	ran := false
	for _, s := range suites {
		if *suiteName != "" && s.name != *suiteName {
			continue
		}
		ran = true
		rows = append(rows, runSuite(t, s, filepath.Join(base, s.name))...)
	}
	if !ran {
		t.Fatalf("no suite is named %q", *suiteName)
	}
	if *suiteName != "" && *updateKnown {
		t.Fatal("-update-known rewrites the whole list: run it without -suite")
	}
	if *reportPath != "" {
		b, _ := json.MarshalIndent(rows, "", " ")
		if err := os.WriteFile(*reportPath, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	same := 0
	for _, r := range rows {
		if r.Same {
			same++
		}
	}
	t.Logf("Claude Code %s: %d calls, %d identical (%.1f%%), %d differ", claudecode.Version, len(rows), same,
		100*float64(same)/float64(len(rows)), len(rows)-same)
	known := map[string]string{}
	if b, err := os.ReadFile(knownFile); err == nil {
		if err := json.Unmarshal(b, &known); err != nil {
			t.Fatalf("%s: %v", knownFile, err)
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if *updateKnown {
		next := map[string]string{}
		for _, r := range rows {
			if r.Same {
				continue
			}
			if why, ok := known[r.Key]; ok {
				next[r.Key] = why
			} else {
				next[r.Key] = r.Why
			}
		}
		// Reasons quote <tool_use_error> and the like: keep them readable.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", " ")
		if err := enc.Encode(next); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(knownFile, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d calls", knownFile, len(next))
		return
	}
	keys := map[string]bool{}
	for _, r := range rows {
		keys[r.Key] = true
		why, listed := known[r.Key]
		switch {
		case r.Same && listed:
			t.Errorf("%s now matches Claude Code (listed as %q): take it off %s (go test ./test/conformance -update-known)", r.Key, why, knownFile)
		case !r.Same && !listed:
			t.Errorf("%s (%s) differs from Claude Code %s: %s\n  decision: claude %s, toold %s\n  claude: %s\n  toold:  %s",
				r.Key, r.Tool, claudecode.Version, r.Why, r.CCDecision, r.TDecision, abridge(r.CC), abridge(r.Toold))
		}
	}
	var stale []string
	for k := range known {
		if !keys[k] && *suiteName == "" {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	for _, k := range stale {
		t.Errorf("%s lists %s, which no case compares: take it off", knownFile, k)
	}
}

// runSuite runs a suite's cases, several at once: those without settings
// or flags on one shared toold, the others each on a toold of its own, as
// the oracle does.
func runSuite(t *testing.T, s suite, base string) []row {
	cases, err := loadCases(s.cases)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := os.ReadFile(s.fixture)
	if err != nil {
		t.Fatalf("%v: record it with `make conformance-record`", err)
	}
	var fx fixture
	if err := json.Unmarshal(fb, &fx); err != nil {
		t.Fatalf("%s: %v", s.fixture, err)
	}
	if fx.ClaudeCodeVersion != claudecode.Version {
		t.Fatalf("%s was recorded from Claude Code %s, the pin is %s: run `make conformance-record`", s.fixture, fx.ClaudeCodeVersion, claudecode.Version)
	}
	if (fx.HostPrompts == "deny") != (s.denyText != "") || fx.DenyMessage != s.denyText {
		t.Fatalf("%s was recorded with host prompts %q and deny message %q, the test answers with %q", s.fixture, fx.HostPrompts, fx.DenyMessage, s.denyText)
	}
	if err := os.MkdirAll(filepath.Join(base, "ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	shared, err := startToold(t, base)
	if err != nil {
		t.Fatal(err)
	}
	defer shared.stop()

	outcomes := make([]map[string]outcome, len(cases))
	errs := make([]error, len(cases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			outcomes[i], errs[i] = runOne(t, c, base, shared, s.denyText)
		}()
	}
	wg.Wait()

	want := map[string]int{}
	for i, call := range fx.Calls {
		want[call.Key] = i
	}
	var rows []row
	for i, c := range cases {
		keys := callKeys(c)
		for _, turn := range c.Turns {
			for _, b := range turn {
				key, ok := keys[b.ID]
				if !ok {
					continue
				}
				fi, ok := want[key]
				if !ok {
					t.Errorf("%s: %s has no recorded result: run `make conformance-record`", s.fixture, key)
					continue
				}
				exp := fx.Calls[fi]
				if exp.ToolUseID != b.ID || exp.Tool != b.Name {
					t.Errorf("%s: %s was recorded for another call (%s %s): run `make conformance-record`", s.fixture, key, exp.Tool, exp.ToolUseID)
					continue
				}
				got, ok := outcomes[i][b.ID]
				if !ok {
					// no result, as when CreateSession fails: the oracle reads no decision
					got.decision = "n/a"
				}
				if s.denyText == "" && got.decision == "ask" {
					// A plain `claude -p` run denies an ask at once and
					// reports it among its permission denials; toold's ask,
					// answered with a deny here, is the same decision.
					got.decision = "deny"
				}
				r := row{Key: key, Tool: b.Name, CCDecision: exp.Decision, TDecision: got.decision, CC: exp.Result, Toold: got.result}
				if errs[i] != nil {
					r.Error = errs[i].Error()
				}
				r.Same = equal(exp.Result, got.result) && exp.Decision == got.decision
				if !r.Same {
					r.Why = why(r)
				}
				rows = append(rows, r)
			}
		}
	}
	return rows
}

func runOne(t *testing.T, c testCase, base string, shared *daemon, denyText string) (map[string]outcome, error) {
	dd := caseDirs(base, c.ID)
	if err := prepare(c, dd); err != nil {
		return nil, err
	}
	d := shared
	if len(c.Settings) > 0 || len(c.TooldArgs) > 0 {
		args := append([]string(nil), c.TooldArgs...)
		if len(c.Settings) > 0 {
			// operator settings (hooks) need a toold of their own
			sp := filepath.Join(base, "settings", c.ID+".json")
			if err := os.MkdirAll(filepath.Dir(sp), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(sp, []byte(dd.subst(string(c.Settings))), 0o644); err != nil {
				return nil, err
			}
			args = append([]string{"--settings", sp}, args...)
		}
		own, err := startToold(t, base, args...)
		if err != nil {
			return nil, err
		}
		defer own.stop()
		d = own
	}
	return runCase(context.Background(), d, c, dd, denyText)
}

// why says in one line how a call differs, as oracle.py compare does.
func why(r row) string {
	var parts []string
	switch {
	case r.Toold == nil:
		parts = append(parts, "no toold result")
		if r.Error != "" {
			parts[0] += " (" + firstLine(r.Error) + ")"
		}
	case r.CC.IsError != r.Toold.IsError:
		parts = append(parts, fmt.Sprintf("is_error claude=%v toold=%v", r.CC.IsError, r.Toold.IsError))
	case equal(r.CC, r.Toold):
	case strings.ReplaceAll(r.CC.text(), "<WS>/", "") == strings.ReplaceAll(r.Toold.text(), "<WS>/", ""):
		parts = append(parts, "paths only")
	default:
		parts = append(parts, "text")
	}
	if r.CCDecision != r.TDecision {
		parts = append(parts, fmt.Sprintf("decision %s vs %s", r.CCDecision, r.TDecision))
	}
	return strings.Join(parts, "; ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func abridge(n *normResult) string {
	s := strings.ReplaceAll(n.text(), "\n", "⏎")
	if n != nil && n.IsError {
		s = "[error] " + s
	}
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + fmt.Sprintf("… (%d chars)", len(r))
	}
	return s
}
