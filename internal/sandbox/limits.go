package sandbox

import (
	"errors"
	"strconv"
	"strings"
	"syscall"
)

// rlimitNproc is RLIMIT_NPROC, which package syscall does not name.
const rlimitNproc = 6

// Resource limits are set by bash itself, as the first words of its
// command line: Go cannot set a child's rlimits between clone and exec
// (they belong to the process, not to the thread that clones), and setting
// them from toold after the start would race with the command. A command
// cannot undo them: soft and hard limits are lowered together, and raising
// a hard limit needs a privilege the sandbox user does not have.

// ulimitPrefix is what goes before a command's script, on its first line so
// that bash's line numbers stay the command's own; "" when no limit is set.
// posix: bash runs in POSIX mode (POSIXLY_CORRECT), where -f counts 512-byte
// blocks instead of 1024-byte ones.
func (lim Limits) ulimitPrefix(posix bool) string {
	block := uint64(1024)
	if posix {
		block = 512
	}
	var b strings.Builder
	add := func(flag string, v uint64) {
		if v > 0 {
			b.WriteString(" -" + flag + " " + strconv.FormatUint(v, 10))
		}
	}
	add("t", lim.CPUSeconds)
	add("v", kib(lim.AddressSpace, 1024))
	add("n", lim.OpenFiles)
	add("u", lim.Processes)
	add("f", kib(lim.FileSize, block))
	if b.Len() == 0 {
		return ""
	}
	return "builtin ulimit -S -H" + b.String() + " || builtin exit 126; "
}

// kib converts bytes to bash's units, rounding down but never to 0 (which
// would mean "nothing at all" rather than "a little").
func kib(bytes, unit uint64) uint64 {
	if bytes == 0 {
		return 0
	}
	return max(bytes/unit, 1)
}

// clamp lowers each limit to toold's own hard limit: bash could not raise
// it, and its ulimit would fail instead.
func (lim Limits) clamp() Limits {
	for _, r := range []struct {
		res int
		v   *uint64
	}{
		{syscall.RLIMIT_CPU, &lim.CPUSeconds},
		{syscall.RLIMIT_AS, &lim.AddressSpace},
		{syscall.RLIMIT_NOFILE, &lim.OpenFiles},
		{rlimitNproc, &lim.Processes},
		{syscall.RLIMIT_FSIZE, &lim.FileSize},
	} {
		var cur syscall.Rlimit
		if *r.v > 0 && syscall.Getrlimit(r.res, &cur) == nil && cur.Max != ^uint64(0) {
			*r.v = min(*r.v, cur.Max)
		}
	}
	return lim
}

// errNotBashC: the sandbox runs `bash -c SCRIPT` and nothing else, since it
// puts the resource limits into SCRIPT.
var errNotBashC = errors.New("sandbox: the command must be bash -c SCRIPT")

// limitArgs returns args with the ulimit prefix put before the script.
func limitArgs(args []string, prefix string) ([]string, error) {
	if len(args) < 3 || args[1] != "-c" {
		return nil, errNotBashC
	}
	if prefix == "" {
		return args, nil
	}
	out := append([]string(nil), args...)
	out[2] = prefix + out[2]
	return out, nil
}
