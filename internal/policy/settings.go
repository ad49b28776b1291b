package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/toold/toold/internal/strictjson"
)

// maxSettingsSize bounds a settings file. Real ones are a few kilobytes.
const maxSettingsSize = 1 << 20

// Settings is one source's permission settings, shaped like the
// "permissions" block of Claude Code's settings.json
// (https://code.claude.com/docs/en/settings "Permission settings").
type Settings struct {
	Allow []string
	Deny  []string
	Ask   []string
	// AdditionalDirectories extend file access (not configuration loading),
	// as written; the caller resolves relative entries.
	AdditionalDirectories []string
	// DefaultMode is a permission mode as written ("manual" is accepted as
	// the documented alias of "default"), "" when unset.
	DefaultMode string
	// DisableBypassPermissionsMode is "disable" or "".
	DisableBypassPermissionsMode string
	// DisableAutoMode is "disable" or "".
	DisableAutoMode string
}

// ValidModes are the permissionMode spellings settings may hold
// (https://code.claude.com/docs/en/permission-modes; "manual" since
// v2.1.200).
var ValidModes = []string{"default", "manual", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"}

// IsZero reports whether s sets nothing.
func (s Settings) IsZero() bool {
	return len(s.Allow) == 0 && len(s.Deny) == 0 && len(s.Ask) == 0 && len(s.AdditionalDirectories) == 0 &&
		s.DefaultMode == "" && s.DisableBypassPermissionsMode == "" && s.DisableAutoMode == ""
}

// Validate checks the fields that are not rules (Compile checks those).
func (s Settings) Validate() error {
	if s.DefaultMode != "" && !containsString(ValidModes, s.DefaultMode) {
		return fmt.Errorf("permissions.defaultMode %q is not one of %v", s.DefaultMode, ValidModes)
	}
	if s.DisableBypassPermissionsMode != "" && s.DisableBypassPermissionsMode != "disable" {
		return fmt.Errorf("permissions.disableBypassPermissionsMode must be \"disable\", not %q", s.DisableBypassPermissionsMode)
	}
	if s.DisableAutoMode != "" && s.DisableAutoMode != "disable" {
		return fmt.Errorf("permissions.disableAutoMode must be \"disable\", not %q", s.DisableAutoMode)
	}
	for i, d := range s.AdditionalDirectories {
		if d == "" || !utf8.ValidString(d) || strings.ContainsFunc(d, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return fmt.Errorf("permissions.additionalDirectories[%d] %q is empty or holds control characters", i, d)
		}
	}
	return nil
}

// ParseSettingsFile reads a settings.json file and returns its
// "permissions" block. Other top-level keys (hooks, env, model, ...) are
// not this package's business and are ignored; a key that differs from
// "permissions" only in case is refused, since Claude Code would ignore it
// and the operator would believe its rules in force. Inside "permissions"
// every key must be known. The JSON must be strict: valid UTF-8, no
// duplicate keys at any depth, nothing after the object, at most 1 MiB.
// The file must be a regular file; it is opened without blocking so that a
// FIFO planted in its place cannot stall the caller.
func ParseSettingsFile(path string) (Settings, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return Settings{}, fmt.Errorf("settings %s: %w", path, err)
	}
	defer f.Close()
	return readSettings(f, path)
}

// readSettings reads and parses an open settings file.
func readSettings(f fs.File, origin string) (Settings, error) {
	st, err := f.Stat()
	if err != nil {
		return Settings{}, fmt.Errorf("settings %s: %w", origin, err)
	}
	if !st.Mode().IsRegular() {
		return Settings{}, fmt.Errorf("settings %s: not a regular file", origin)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsSize+1))
	if err != nil {
		return Settings{}, fmt.Errorf("settings %s: %w", origin, err)
	}
	if len(data) > maxSettingsSize {
		return Settings{}, fmt.Errorf("settings %s: larger than %d bytes", origin, maxSettingsSize)
	}
	s, err := ParseSettings(data)
	if err != nil {
		return Settings{}, fmt.Errorf("settings %s: %w", origin, err)
	}
	return s, nil
}

// ParseSettings parses settings.json content; see ParseSettingsFile.
func ParseSettings(data []byte) (Settings, error) {
	if !utf8.Valid(data) {
		return Settings{}, errors.New("not valid UTF-8")
	}
	if err := strictjson.Check(data); err != nil {
		return Settings{}, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return Settings{}, errors.New("the settings must be a JSON object")
	}
	var perm json.RawMessage
	for k, v := range top {
		switch {
		case k == "permissions":
			perm = v
		case strings.EqualFold(k, "permissions"):
			return Settings{}, fmt.Errorf("top-level key %q: did you mean \"permissions\"? (keys are case-sensitive)", k)
		}
	}
	if perm == nil {
		return Settings{}, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(perm, &fields); err != nil || fields == nil {
		return Settings{}, errors.New("\"permissions\" must be a JSON object")
	}
	var s Settings
	for k, v := range fields {
		var err error
		switch k {
		case "allow":
			s.Allow, err = strictjson.Strings(v)
		case "deny":
			s.Deny, err = strictjson.Strings(v)
		case "ask":
			s.Ask, err = strictjson.Strings(v)
		case "additionalDirectories":
			s.AdditionalDirectories, err = strictjson.Strings(v)
		case "defaultMode":
			s.DefaultMode, err = strictjson.String(v)
		case "disableBypassPermissionsMode":
			s.DisableBypassPermissionsMode, err = strictjson.String(v)
		case "disableAutoMode":
			s.DisableAutoMode, err = strictjson.String(v)
		default:
			return Settings{}, fmt.Errorf("unknown key permissions.%s (known: allow, deny, ask, additionalDirectories, defaultMode, disableBypassPermissionsMode, disableAutoMode)", k)
		}
		if err != nil {
			return Settings{}, fmt.Errorf("permissions.%s: %w", k, err)
		}
	}
	if err := s.Validate(); err != nil {
		return Settings{}, err
	}
	return s, nil
}
