//go:build unix

package grep

import (
	"os/exec"
	"time"

	"github.com/toold/toold/internal/procgroup"
)

// ownProcessGroup puts rg in a process group of its own and makes
// cancelling the command kill the whole group, so that nothing it started
// outlives the call.
func ownProcessGroup(cmd *exec.Cmd) {
	procgroup.Prepare(cmd, 2*time.Second)
}
