package exec

import (
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/telemetry"
)

// toolLabels are the values of the tool attribute across every metric.
func toolLabels(rm metricdata.ResourceMetrics) map[string]bool {
	seen := map[string]bool{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					if v, ok := dp.Attributes.Value("tool"); ok {
						seen[v.AsString()] = true
					}
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					if v, ok := dp.Attributes.Value("tool"); ok {
						seen[v.AsString()] = true
					}
				}
			}
		}
	}
	return seen
}

// Names are the callers': a stream of made-up ones adds one series
// (tool="unknown"), not one per name.
func TestMadeUpToolNamesAreOneSeries(t *testing.T) {
	th := newTelemetryHarness(t, policy.WorkspaceOnly{}, &fakeTool{name: "Echo", safe: true})
	var reqs []Request
	for i := range 40 {
		reqs = append(reqs, call(fmt.Sprintf("u%d", i), fmt.Sprintf("Made_Up_%d", i), map[string]any{}))
	}
	reqs = append(reqs, call("k", "Echo", map[string]any{"text": "hi"}))
	th.execTraced(t, reqs...)
	m := collect(t, th.metrics)
	labels := toolLabels(m)
	if len(labels) != 2 || !labels["Echo"] || !labels[telemetry.UnknownTool] {
		t.Errorf("tool labels %v, want Echo and %s", labels, telemetry.UnknownTool)
	}
	if n := counter(m, "toold.calls", "tool", telemetry.UnknownTool); n != 40 {
		t.Errorf("toold.calls{tool=unknown} = %d, want 40", n)
	}
}

// The help text of the denials counter lists the sources a denial is
// counted under, and no other.
func TestDenialsHelpNamesTheSources(t *testing.T) {
	th := newTelemetryHarness(t, denyAll{}, &fakeTool{name: "Echo", safe: true})
	th.execTraced(t, call("a", "Echo", map[string]any{"text": "hi"}))
	var help string
	for _, sm := range collect(t, th.metrics).ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "toold.denials" {
				help = m.Description
			}
		}
	}
	want := []string{"hook", "denialTracking", "user"}
	for s := policy.SourcePolicy; s <= policy.SourceSession; s++ {
		want = append(want, s.String())
	}
	for _, w := range want {
		if !strings.Contains(help, w) {
			t.Errorf("help %q does not name %s", help, w)
		}
	}
	if strings.Contains(help, "timeout") {
		t.Errorf("help %q names timeout, which no denial is counted under (an unanswered request counts as user)", help)
	}
}
