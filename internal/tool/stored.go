package tool

import "strings"

// Stored results. A result too long for the model's context is stored
// whole in the session's state (see exec's persistence) and the model is
// given a handle; Read pages through it. The names live here because both
// the engine and the Read tool need them.
const (
	// ResultHandlePrefix starts the handle of a stored result; Read takes
	// the handle as its file_path. It cannot be mistaken for a file: a
	// path has no scheme, and Read checks for the prefix before it looks
	// at the workspace.
	ResultHandlePrefix = "toold-result://"
	resultBlobPrefix   = "result:"
)

// ResultBlobKey is the session blob key of a call's stored result.
func ResultBlobKey(toolUseID string) string { return resultBlobPrefix + toolUseID }

// ResultHandle is the handle the model is given for a call's stored result.
func ResultHandle(toolUseID string) string { return ResultHandlePrefix + toolUseID }

// ParseResultHandle returns the tool_use_id a handle names, and whether s
// is a handle at all.
func ParseResultHandle(s string) (string, bool) {
	id, ok := strings.CutPrefix(s, ResultHandlePrefix)
	return id, ok && id != ""
}

// Background task output. A background task (a Bash command run in the
// background, or a Monitor) writes its output to a file of the server's; the
// model is given the file's handle, toold-task://<task id>.output, and reads
// it with Read as Claude Code's model reads a task's output file. The
// handle names a task of the calling session only: to any other session it
// names nothing, and no tool but Read takes it.
const (
	TaskOutputPrefix = "toold-task://"
	taskOutputSuffix = ".output"
)

// TaskOutputHandle is the handle of a background task's output file.
func TaskOutputHandle(taskID string) string {
	return TaskOutputPrefix + taskID + taskOutputSuffix
}

// ParseTaskOutputHandle returns the task id a handle names, and whether s
// is a task output handle at all.
func ParseTaskOutputHandle(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, TaskOutputPrefix)
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, taskOutputSuffix)
	if !ok || id == "" || strings.ContainsAny(id, "/\\") {
		return "", false
	}
	return id, true
}
