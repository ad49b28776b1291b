package notify

import (
	"fmt"
	"math"
	"time"
)

// Duration writes d as Claude Code 2.1.332 writes a monitor's deadline
// ("expires in 5m", "expired after 1s"): under a minute in whole seconds,
// rounded down ("1s" for 1.5 s); from a minute on in days, hours, minutes
// and seconds, the seconds rounded to the nearest (carrying into the
// minutes), trailing zero units left out ("1m", "1m 2s" for 61.5 s, "2m"
// for 120.001 s).
func Duration(d time.Duration) string {
	ms := d.Milliseconds()
	switch {
	case ms == 0:
		return "0s"
	case ms < 60000:
		return fmt.Sprintf("%ds", ms/1000)
	}
	days, hours, mins := ms/86400000, ms%86400000/3600000, ms%3600000/60000
	secs := int64(math.Round(float64(ms%60000) / 1000))
	if secs == 60 {
		secs, mins = 0, mins+1
	}
	if mins == 60 {
		mins, hours = 0, hours+1
	}
	if hours == 24 {
		hours, days = 0, days+1
	}
	switch {
	case days > 0 && hours == 0 && mins == 0:
		return fmt.Sprintf("%dd", days)
	case days > 0 && mins == 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case days > 0:
		return fmt.Sprintf("%dd %dh %dm", days, hours, mins)
	case hours > 0 && mins == 0 && secs == 0:
		return fmt.Sprintf("%dh", hours)
	case hours > 0 && secs == 0:
		return fmt.Sprintf("%dh %dm", hours, mins)
	case hours > 0:
		return fmt.Sprintf("%dh %dm %ds", hours, mins, secs)
	case secs == 0:
		return fmt.Sprintf("%dm", mins)
	}
	return fmt.Sprintf("%dm %ds", mins, secs)
}
