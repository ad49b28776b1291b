package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"sync"
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

// children lists this process's children that keep returns true for. It
// reads the children files of this process's threads, which name only
// them (reading every process of the machine takes milliseconds where
// /proc is slow), and scans all processes where the kernel has no such
// files (CONFIG_PROC_CHILDREN unset).
func children(keep func(procStat) bool) []procStat {
	self := os.Getpid()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil || !hasChildrenFiles() {
		return processes(func(p procStat) bool { return p.ppid == self && keep(p) })
	}
	var out []procStat
	for _, task := range tasks {
		// A thread that has ended meanwhile has no file; its
		// children, if any, have moved to another thread.
		data, _ := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		for _, w := range bytes.Fields(data) {
			pid, err := strconv.Atoi(string(w))
			if err != nil {
				continue
			}
			if p, ok := readStat(pid); ok && p.ppid == self && keep(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// hasChildrenFiles reports whether the kernel lists each thread's children
// in /proc; the main thread's file exists for as long as the process.
var hasChildrenFiles = sync.OnceValue(func() bool {
	pid := strconv.Itoa(os.Getpid())
	_, err := os.Stat("/proc/" + pid + "/task/" + pid + "/children")
	return err == nil
})
