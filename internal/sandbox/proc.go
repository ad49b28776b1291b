package sandbox

import (
	"bytes"
	"os"
	"strconv"
)

// procStat is what /proc/<pid>/stat says about a process.
type procStat struct {
	pid, ppid, pgrp, session int
	state                    byte
}

// processes lists the processes that keep returns true for.
func processes(keep func(procStat) bool) []procStat {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	var out []procStat
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok && keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// readStat parses /proc/<pid>/stat. The command name may hold spaces and
// parentheses, so the fields are counted from its last ')'.
func readStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return procStat{}, false
	}
	p := procStat{pid: pid, state: f[0][0]}
	var errs [3]error
	p.ppid, errs[0] = strconv.Atoi(string(f[1]))
	p.pgrp, errs[1] = strconv.Atoi(string(f[2]))
	p.session, errs[2] = strconv.Atoi(string(f[3]))
	for _, err := range errs {
		if err != nil {
			return procStat{}, false
		}
	}
	return p, true
}
