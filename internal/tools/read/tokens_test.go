package read

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// tokenCapFixture is what Claude Code returned; see its "about".
type tokenCapFixture struct {
	Cases []struct {
		Files map[string]json.RawMessage `json:"files"`
		Calls []struct {
			Input   map[string]any `json:"input"`
			IsError bool           `json:"is_error"`
			Length  int            `json:"length"`
			SHA256  string         `json:"sha256"`
			Text    string         `json:"text"`
		} `json:"calls"`
	} `json:"cases"`
}

var lineNumber = regexp.MustCompile(`\{i(?::0(\d+)d)?\}`)

// fileBytes builds a file as the oracle's case files describe it.
func fileBytes(t *testing.T, raw json.RawMessage) string {
	var spec struct {
		Text   string `json:"text"`
		Repeat int    `json:"repeat"`
		Lines  *struct {
			Count  int    `json:"count"`
			Format string `json:"format"`
		} `json:"lines"`
	}
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Lines == nil {
		return strings.Repeat(spec.Text, max(spec.Repeat, 1))
	}
	var sb strings.Builder
	for i := 1; i <= spec.Lines.Count; i++ {
		sb.WriteString(lineNumber.ReplaceAllStringFunc(spec.Lines.Format, func(m string) string {
			w := lineNumber.FindStringSubmatch(m)[1]
			if w == "" {
				return strconv.Itoa(i)
			}
			n, _ := strconv.Atoi(w)
			return fmt.Sprintf("%0*d", n, i)
		}))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestTokenCapAsClaudeCode replays the recorded reads with MaxTokens 25000:
// each result must have the length and hash of Claude Code's, each refusal
// its text.
func TestTokenCapAsClaudeCode(t *testing.T) {
	data, err := os.ReadFile("testdata/token_cap_cc.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx tokenCapFixture
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatal(err)
	}
	rd := New(Options{MaxTokens: 25000})
	calls := 0
	for _, c := range fx.Cases {
		env, _, _ := tooltest.Env(t)
		for name, spec := range c.Files {
			if err := os.WriteFile(filepath.Join(env.Cwd, name), []byte(fileBytes(t, spec)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, call := range c.Calls {
			calls++
			in := map[string]any{}
			for k, v := range call.Input {
				in[k] = v
			}
			in["file_path"] = filepath.Join(env.Cwd, call.Input["file_path"].(string))
			name := fmt.Sprint(call.Input)
			res, err := tooltest.Run(t, rd, env, in)
			if call.IsError {
				var te *tool.Error
				if !errors.As(err, &te) || te.Msg != call.Text {
					t.Errorf("%s: err = %v, want %q", name, err, call.Text)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			got := tooltest.Text(res)
			sum := sha256.Sum256([]byte(got))
			if utf8.RuneCountInString(got) != call.Length || hex.EncodeToString(sum[:]) != call.SHA256 {
				t.Errorf("%s: got %d bytes (%.60q … %.60q), want %d as Claude Code", name, len(got), got, got[max(0, len(got)-60):], call.Length)
			}
		}
	}
	if calls < 10 {
		t.Fatalf("only %d recorded calls", calls)
	}
}

// Without MaxTokens, nothing is cut: the default, as the oracle's Claude
// Code (whose API counts the tokens low) returns these files whole.
func TestNoTokenCapByDefault(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	p := filepath.Join(env.Cwd, "dense.txt")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", 200_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := tooltest.Run(t, New(Options{}), env, map[string]any{"file_path": p})
	if err != nil {
		t.Fatal(err)
	}
	if got := tooltest.Text(res); len(got) != 200_002 {
		t.Fatalf("got %d bytes, want the whole file", len(got))
	}
}

func TestCutUnits(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 2, "ab"}, {"a😀b", 2, "a"}, {"a😀b", 3, "a😀"}, {"ab\ncd", 5, "ab"}, {"", 3, ""},
	} {
		if got := cutUnits(c.s, c.n); got != c.want {
			t.Errorf("cutUnits(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
