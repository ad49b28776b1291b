package tool

import "fmt"

// ErrorKind classifies why a call failed. It is mapped one to one onto the
// API's ErrorKind enum.
type ErrorKind int

const (
	KindNone ErrorKind = iota
	KindInvalidInput
	KindUnknownTool
	KindPermissionDenied
	KindTimeout
	KindFailed
	KindCancelled
	KindInternal
	KindUnavailable
	// Finer kinds of KindFailed (the call ran and failed), so that a
	// client can tell the common failures apart without reading the text.
	KindNotFound
	KindWrongType
	KindNoMatch
	KindNotUnique
	KindConflict
)

func (k ErrorKind) String() string {
	switch k {
	case KindNone:
		return "none"
	case KindInvalidInput:
		return "invalid_input"
	case KindUnknownTool:
		return "unknown_tool"
	case KindPermissionDenied:
		return "permission_denied"
	case KindTimeout:
		return "timeout"
	case KindFailed:
		return "failed"
	case KindCancelled:
		return "cancelled"
	case KindInternal:
		return "internal"
	case KindUnavailable:
		return "unavailable"
	case KindNotFound:
		return "not_found"
	case KindWrongType:
		return "wrong_type"
	case KindNoMatch:
		return "no_match"
	case KindNotUnique:
		return "not_unique"
	case KindConflict:
		return "conflict"
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Error is a failure whose message is written for the model.
type Error struct {
	Kind ErrorKind
	Msg  string
	Err  error
	// Bare: the model gets Msg as it is. By default the engine wraps the
	// message of an error in <tool_use_error> tags, as Claude Code wraps
	// the failures of its input checks; Claude Code gives an exception a
	// tool throws while it runs bare (see Bare).
	Bare bool
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Kind: kind, Msg: err.Error(), Err: unwrapOnce(err)}
}

// Bare returns e marked to reach the model without the <tool_use_error>
// tags (Claude Code's text for an error thrown while the tool ran).
func Bare(e *Error) *Error {
	c := *e
	c.Bare = true
	return &c
}

// Failf is Errorf(KindFailed, ...): the call ran and did not succeed.
func Failf(format string, args ...any) *Error { return Errorf(KindFailed, format, args...) }

// InvalidInputf is Errorf(KindInvalidInput, ...).
func InvalidInputf(format string, args ...any) *Error {
	return Errorf(KindInvalidInput, format, args...)
}

func unwrapOnce(err error) error {
	if u, ok := err.(interface{ Unwrap() error }); ok {
		return u.Unwrap()
	}
	return nil
}
