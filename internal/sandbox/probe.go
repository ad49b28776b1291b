package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// landlockABI returns the kernel's Landlock ABI version, or 0 and why not.
func landlockABI() (int, string) {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return 0, fmt.Sprintf("landlock: this kernel has no Landlock or it is not enabled at boot (add landlock to the lsm= kernel parameter): %v", err)
	}
	return v, ""
}

// sandboxUser resolves the account commands run as when toold is root and
// checks that toold may switch to it.
func sandboxUser(name string) (uid, gid int, err error) {
	u, err := user.Lookup(name)
	if err != nil {
		return 0, 0, fmt.Errorf("sandbox user %q: %w", name, err)
	}
	uid, err = strconv.Atoi(u.Uid)
	if err != nil {
		return 0, 0, fmt.Errorf("sandbox user %q has uid %q", name, u.Uid)
	}
	gid, err = strconv.Atoi(u.Gid)
	if err != nil {
		return 0, 0, fmt.Errorf("sandbox user %q has gid %q", name, u.Gid)
	}
	if uid == 0 {
		return 0, 0, fmt.Errorf("sandbox user %q is root", name)
	}
	for _, c := range []struct {
		bit  uint
		name string
	}{{7, "CAP_SETUID"}, {6, "CAP_SETGID"}, {0, "CAP_CHOWN"}} {
		if !hasCapability(c.bit) {
			return 0, 0, fmt.Errorf("toold runs as root without %s, which switching to %q needs", c.name, name)
		}
	}
	return uid, gid, nil
}

// hasCapability reads the effective capability set from /proc/self/status.
func hasCapability(bit uint) bool {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && caps&(1<<bit) != 0
		}
	}
	return false
}
