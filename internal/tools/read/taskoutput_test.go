package read

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tool/tooltest"
)

// fakeTasks holds output files by session and task.
type fakeTasks map[string]string

func (f fakeTasks) OpenOutput(sessionID, id string) (io.Reader, int64, error) {
	s, ok := f[sessionID+"/"+id]
	if !ok {
		return nil, 0, fmt.Errorf("no task %s: %w", id, fs.ErrNotExist)
	}
	return strings.NewReader(s), int64(len(s)), nil
}

func TestReadTaskOutput(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	tasks := fakeTasks{env.SessionID + "/bash_1": "hello\nerr\n\n[killed]\n", env.SessionID + "/bash_empty": ""}
	rd := New(Options{Tasks: tasks})
	for _, tc := range []struct {
		in   map[string]any
		want string
	}{
		// As Claude Code's Read of its output file gave it.
		{map[string]any{"file_path": tool.TaskOutputHandle("bash_1")}, "1\thello\n2\terr\n3\t\n4\t[killed]\n5\t"},
		{map[string]any{"file_path": tool.TaskOutputHandle("bash_1"), "offset": 4, "limit": 1}, "4\t[killed]"},
		{map[string]any{"file_path": tool.TaskOutputHandle("bash_empty")}, "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"},
	} {
		res, err := tooltest.Run(t, rd, env, tc.in)
		if err != nil {
			t.Fatalf("%v: %v", tc.in, err)
		}
		if got := tooltest.Text(res); got != tc.want {
			t.Errorf("%v:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestReadTaskOutputRefusals(t *testing.T) {
	env, _, _ := tooltest.Env(t)
	tasks := fakeTasks{"other-session/bash_1": "secret\n"}
	for name, tc := range map[string]struct {
		rd   tool.Tool
		in   map[string]any
		kind tool.ErrorKind
	}{
		"another session's task": {New(Options{Tasks: tasks}), map[string]any{"file_path": tool.TaskOutputHandle("bash_1")}, tool.KindNotFound},
		"no background tasks":    {New(Options{}), map[string]any{"file_path": tool.TaskOutputHandle("bash_1")}, tool.KindFailed},
		"pages":                  {New(Options{Tasks: tasks}), map[string]any{"file_path": tool.TaskOutputHandle("bash_1"), "pages": "1"}, tool.KindInvalidInput},
	} {
		_, err := tooltest.Run(t, tc.rd, env, tc.in)
		var te *tool.Error
		if !errors.As(err, &te) || te.Kind != tc.kind || strings.Contains(te.Msg, "secret") {
			t.Errorf("%s: %v, want kind %v", name, err, tc.kind)
		}
	}
}

func TestTaskOutputHandle(t *testing.T) {
	for s, want := range map[string]string{
		"toold-task://bash_1.output":      "bash_1",
		"toold-task://bash_1":             "",
		"toold-task://.output":            "",
		"toold-task://a/../b.output":      "",
		"/tmp/toold-task://bash_1.output": "",
	} {
		id, ok := tool.ParseTaskOutputHandle(s)
		if id != want || ok != (want != "") {
			t.Errorf("ParseTaskOutputHandle(%q) = %q, %v", s, id, ok)
		}
	}
}
