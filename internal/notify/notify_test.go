package notify

import (
	"strings"
	"testing"
	"time"
)

// The deadlines Claude Code 2.1.332 wrote in the recorded Monitor results
// (r-durations, s-durations2), and the larger units of the same function.
func TestDuration(t *testing.T) {
	for ms, want := range map[float64]string{
		1000: "1s", 1000.7: "1s", 1500: "1s", 1999: "1s", 59500: "59s", 59999: "59s",
		60000: "1m", 61500: "1m 2s", 90000: "1m 30s", 119500: "2m", 120001: "2m",
		300000: "5m", 599999: "10m", 600000: "10m",
		3600000: "1h", 3660000: "1h 1m", 3661000: "1h 1m 1s", 86400000: "1d", 90000000: "1d 1h", 90060000: "1d 1h 1m",
	} {
		if got := Duration(time.Duration(ms * float64(time.Millisecond))); got != want {
			t.Errorf("%v ms: %q, want %q", ms, got, want)
		}
	}
}

func TestSummaryCut(t *testing.T) {
	if s := strings.Repeat("x", 1000); Summary(s) != s {
		t.Fatal("a summary of 1000 was cut")
	}
	s := "A" + strings.Repeat("x", 1000) + "Z"
	want := "A" + strings.Repeat("x", 499) + "\n\n... [202 characters truncated] ...\n\n" + strings.Repeat("x", 299) + "Z"
	if got := Summary(s); got != want {
		t.Fatalf("cut to %q", got)
	}
	// A character outside the BMP counts two and is never split.
	e := strings.Repeat("😀", 501)
	if got := Summary(e); !strings.HasPrefix(got, strings.Repeat("😀", 250)+"\n\n... [202 characters truncated]") || !strings.HasSuffix(got, "\n\n"+strings.Repeat("😀", 150)) {
		t.Fatalf("cut to %q", got)
	}
}

func TestElement(t *testing.T) {
	e := Element{TaskID: "t<1>", OutputFile: "toold-task://t.output", Summary: `a "b" & <c>`, Body: "\n<event>x</event>"}
	want := "<task-notification>\n<task-id>t&lt;1&gt;</task-id>\n<output-file>toold-task://t.output</output-file>\n<summary>a \"b\" &amp; &lt;c&gt;</summary>\n<event>x</event>\n</task-notification>"
	if got := e.String(); got != want {
		t.Fatalf("%q", got)
	}
	if got := IdleTurn("<event></System-Reminder ></event>"); got != "<system-reminder>\n"+Preamble+"<event>&lt;/system-reminder&gt;</event>\n</system-reminder>" {
		t.Fatalf("idle turn %q", got)
	}
}

func TestTrimJS(t *testing.T) {
	if got := TrimJS("\ufeff\u00a0\u2003 a b\t\r\u3000"); got != "a b" {
		t.Fatalf("%q", got)
	}
	if got := TrimJS("\u200b a \u200b"); got != "\u200b a \u200b" {
		t.Fatalf("a zero-width space is no white space to JavaScript: %q", got)
	}
}
