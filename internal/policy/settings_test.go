package policy

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

func TestParseSettingsFileReference(t *testing.T) {
	// The settings file shape of https://code.claude.com/docs/en/settings
	// (claude-code-semantics.md §6); hooks are ignored here.
	s, err := ParseSettingsFile("testdata/settings/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Allow:                        []string{"Bash(npm run *)", "Read(~/.zshrc)"},
		Ask:                          []string{"Bash(git push *)"},
		Deny:                         []string{"Read(./.env)", "WebFetch(domain:evil.example)", "mcp__*"},
		AdditionalDirectories:        []string{"../shared"},
		DefaultMode:                  "acceptEdits",
		DisableBypassPermissionsMode: "disable",
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got %+v\nwant %+v", s, want)
	}
	if _, err := Compile([]SourceSettings{{Source: SourceProject, Root: "/p", Settings: s, Origin: "reference.json"}}); err != nil {
		t.Errorf("the reference settings do not compile: %v", err)
	}
}

func TestParseSettingsStrict(t *testing.T) {
	tests := []struct {
		name, json, wantErr string
	}{
		// security.md §10 P12 (duplicate keys)
		{"duplicate deny", `{"permissions":{"deny":["Bash"],"deny":[]}}`, "duplicate key \"deny\""},
		// security.md §10 P12
		{"duplicate top level", `{"permissions":{},"permissions":{"allow":["Bash"]}}`, "duplicate key"},
		// security.md §10 P12 (duplicates anywhere, even in keys this package ignores)
		{"duplicate in hooks", `{"hooks":{"a":1,"a":2}}`, "duplicate key"},
		// security.md §10 P12 (case-variant keys)
		{"case variant", `{"Permissions":{"deny":["Bash"]}}`, "case-sensitive"},
		// https://code.claude.com/docs/en/settings "Permission settings" (unknown keys inside permissions)
		{"unknown permission key", `{"permissions":{"denny":["Bash"]}}`, "unknown key permissions.denny"},
		// https://code.claude.com/docs/en/settings "Permission settings"
		{"case variant inside", `{"permissions":{"Deny":["Bash"]}}`, "unknown key permissions.Deny"},
		// security.md §10 P12 (types)
		{"number in list", `{"permissions":{"deny":["Bash",1]}}`, "permissions.deny: [1] must be a string"},
		// security.md §10 P12
		{"null list", `{"permissions":{"deny":null}}`, "must be an array of strings"},
		// security.md §10 P12
		{"string list", `{"permissions":{"deny":"Bash"}}`, "must be an array of strings"},
		// security.md §10 P12
		{"permissions not object", `{"permissions":[]}`, "must be a JSON object"},
		// https://code.claude.com/docs/en/settings (defaultMode values)
		{"bad mode", `{"permissions":{"defaultMode":"yolo"}}`, "defaultMode"},
		// https://code.claude.com/docs/en/settings (disableBypassPermissionsMode: "disable")
		{"bad disable", `{"permissions":{"disableBypassPermissionsMode":"true"}}`, "must be \"disable\""},
		// security.md §10 P12 (trailing data)
		{"trailing data", `{"permissions":{}} {}`, "data after"},
		// security.md §10 P12
		{"trailing garbage", `{"permissions":{}} x`, "invalid JSON"},
		// security.md §10 P12 (invalid UTF-8)
		{"invalid utf8", "{\"permissions\":{\"deny\":[\"Bash(\xff)\"]}}", "UTF-8"},
		// security.md §10 P12 (a BOM is not JSON)
		{"bom", "\ufeff{}", "invalid JSON"},
		// security.md §10 P12
		{"empty", ``, "empty document"},
		// security.md §10 P12
		{"top-level array", `[]`, "must be a JSON object"},
		// security.md §10 P12
		{"control char in directory", `{"permissions":{"additionalDirectories":["a\u0000b"]}}`, "control characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSettings([]byte(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestParseSettingsLenientWhereDocumented(t *testing.T) {
	// https://code.claude.com/docs/en/settings: other top-level keys belong
	// to other features; "manual" is the v2.1.200 alias of "default".
	s, err := ParseSettings([]byte(`{"env":{"A":"1"},"model":"x","permissions":{"defaultMode":"manual","disableAutoMode":"disable"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.DefaultMode != "manual" || s.DisableAutoMode != "disable" {
		t.Errorf("got %+v", s)
	}
	if s, err := ParseSettings([]byte(`{}`)); err != nil || !s.IsZero() {
		t.Errorf("{} = %+v, %v", s, err)
	}
}

func TestParseSettingsFileErrors(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(`{"x":"`+strings.Repeat("a", maxSettingsSize)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, wantErr string
	}{
		// security.md §1 #13 (a FIFO planted in place of the file must not stall the loader)
		{"fifo", fifo, "not a regular file"},
		{"directory", dir, "not a regular file"},
		{"missing", filepath.Join(dir, "nope.json"), "no such file"},
		// security.md §10 P8 (bounded input)
		{"too large", big, "larger than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSettingsFile(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("err = %v, want one naming the file and containing %q", err, tc.wantErr)
			}
		})
	}
}

// FuzzParseSettings: no panic; whatever parses re-validates.
func FuzzParseSettings(f *testing.F) {
	f.Add([]byte(`{"permissions":{"allow":["Bash"],"deny":[],"ask":["Read(.env)"]}}`))
	f.Add([]byte(`{"a":{"b":[{"c":1,"c":2}]}}`))
	f.Add([]byte(`{"permissions":{"defaultMode":"plan","additionalDirectories":["x"]}} `))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSettings(data)
		if err == nil {
			if err := s.Validate(); err != nil {
				t.Fatalf("parsed settings do not validate: %v", err)
			}
		}
	})
}
