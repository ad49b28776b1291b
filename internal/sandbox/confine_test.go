package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWritesOutsideTheSessionFail(t *testing.T) {
	f := newFixture(t, Options{})
	st := f.l.Status()
	script := fmt.Sprintf(`
echo in > %[1]s/in.txt && echo workspace ok
echo tmp > "$TMPDIR/t" && echo tmpdir ok
echo home > "$HOME/.rc" && echo home ok
echo out > %[2]s/out.txt && echo outside WRITTEN
echo etc >> /etc/hostname && echo etc WRITTEN
mkdir /tmp/escape-$$ && echo tmp WRITTEN
true`, f.workspace, f.outside)
	r := f.run(t, context.Background(), script)
	for _, want := range []string{"workspace ok", "tmpdir ok", "home ok"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("a write the session may make failed (%q missing):\n%v", want, r)
		}
	}
	if _, err := os.Stat(filepath.Join(f.workspace, "in.txt")); err != nil {
		t.Errorf("the workspace write is not there: %v", err)
	}
	if !st.Landlock {
		// Without Landlock only file permissions stand in the way, and
		// the test's outside directory is world-writable on purpose.
		t.Logf("MISSING on this machine: Landlock (%s); checking the fallback: the sandbox user cannot write toold's files", strings.Join(st.Missing, "; "))
		if st.UserSwitch && strings.Contains(r.stdout, "etc WRITTEN") {
			t.Errorf("the sandbox user appended to /etc/hostname:\n%v", r)
		}
		return
	}
	for _, bad := range []string{"outside WRITTEN", "etc WRITTEN", "tmp WRITTEN"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("a write outside the session succeeded (%s):\n%v", bad, r)
		}
	}
	if _, err := os.Stat(filepath.Join(f.outside, "out.txt")); err == nil {
		t.Errorf("%s/out.txt was created", f.outside)
	}
	if !strings.Contains(r.stderr, "Permission denied") {
		t.Errorf("stderr does not say why the writes failed:\n%v", r)
	}
}

func TestServerEnvironmentIsUnreadable(t *testing.T) {
	f := newFixture(t, Options{})
	st := f.l.Status()
	if !st.Landlock && !st.UserSwitch {
		t.Logf("MISSING on this machine: Landlock and a user switch (%s); commands run as toold's user, which can read its /proc/<pid>/environ", strings.Join(st.Missing, "; "))
	}
	script := fmt.Sprintf(`
if tr '\0' '\n' < /proc/%d/environ; then echo READ; fi
env`, os.Getpid())
	r := f.run(t, context.Background(), script, "LANG=C.UTF-8")
	if (st.Landlock || st.UserSwitch) && strings.Contains(r.stdout, "READ") {
		t.Errorf("the command read toold's environment:\n%v", r)
	}
	if strings.Contains(r.stdout, helperEnv) {
		t.Errorf("the helper's own variable reached the command:\n%v", r)
	}
	for _, want := range []string{"LANG=C.UTF-8", "HOME=" + f.l.stateDir, "TMPDIR=" + f.l.stateDir} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("environment lacks %q:\n%v", want, r)
		}
	}
	if st.UserSwitch && !strings.Contains(r.stdout, "USER="+st.User) {
		t.Errorf("USER is not the sandbox user %s:\n%v", st.User, r)
	}
}

func TestUserSwitchDropsGroups(t *testing.T) {
	f := newFixture(t, Options{})
	st := f.l.Status()
	if os.Geteuid() != 0 {
		t.Logf("toold is not root here (uid %d): commands run as toold's own user; checking that", os.Geteuid())
	}
	r := f.run(t, context.Background(), `echo "$(id -u) $(id -g) [$(id -G)]"; grep NoNewPrivs /proc/self/status`)
	want := fmt.Sprintf("%d %d [%d]", st.UID, st.GID, st.GID)
	if !st.UserSwitch {
		want = fmt.Sprintf("%d ", os.Getuid())
	}
	if !strings.Contains(r.stdout, want) {
		t.Errorf("ids: want %q:\n%v", want, r)
	}
	if !strings.Contains(r.stdout, "NoNewPrivs:\t1") {
		t.Errorf("no_new_privs is not set:\n%v", r)
	}
}

func TestNetworkOffRefusesTCP(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf(`if exec 3<>/dev/tcp/127.0.0.1/%d; then echo CONNECTED; fi`, port)

	on := newFixture(t, Options{Network: true})
	if r := on.run(t, context.Background(), script); !strings.Contains(r.stdout, "CONNECTED") {
		t.Fatalf("with the network on, the connect failed:\n%v", r)
	}
	off := newFixture(t, Options{Network: false})
	st := off.l.Status()
	r := off.run(t, context.Background(), script)
	if !st.NetworkDenied {
		t.Logf("MISSING on this machine: Landlock TCP rules (ABI %d, 4 needed); the network cannot be turned off, which Status reports: %q", st.LandlockABI, st.Missing)
		if len(st.Missing) == 0 {
			t.Error("Status does not report the missing network restriction")
		}
		return
	}
	if strings.Contains(r.stdout, "CONNECTED") {
		t.Errorf("with the network off, a TCP connect succeeded:\n%v", r)
	}
	if !strings.Contains(r.stderr, "Permission denied") {
		t.Errorf("the refused connect does not say why:\n%v", r)
	}
}

func TestRequiredRefusesToStartWithoutAProtection(t *testing.T) {
	_, err := New(Options{Mode: ModeRequired, CgroupDir: "-", Network: true}, nil)
	if err == nil || !strings.Contains(err.Error(), "cgroup") {
		t.Fatalf("required mode without cgroups: err = %v, want a refusal naming the cgroup", err)
	}
	l, err := New(Options{Mode: ModeBestEffort, CgroupDir: "-", Network: true}, nil)
	if err != nil {
		t.Fatalf("best-effort mode refused to start: %v", err)
	}
	defer l.Close()
	st := l.Status()
	if st.Cgroup || !st.Subreaper || !strings.Contains(strings.Join(st.Missing, ";"), "cgroup") {
		t.Errorf("best-effort status without cgroups: %+v", st)
	}
}

// TestLinksAndRenamesBetweenDirectories: inside the session's directories
// a file may be hard-linked and renamed from one directory to another (git
// stores objects so, package managers unpack so), whatever other Landlock
// layers are stacked on the session's: Landlock refuses such a "refer" in
// every layer that does not grant it, even one that handles only ports.
// Out of the session's directories, or into them from outside, both stay
// refused.
func TestLinksAndRenamesBetweenDirectories(t *testing.T) {
	for name, cgroupDir := range modes(t) {
		for _, opts := range []Options{
			{CgroupDir: cgroupDir},
			{CgroupDir: cgroupDir, Network: true, DeniedPorts: []int{6379}},
			{CgroupDir: cgroupDir, Network: false, DeniedPorts: []int{6379}},
		} {
			t.Run(fmt.Sprintf("%s/network=%v/ports=%v", name, opts.Network, opts.DeniedPorts), func(t *testing.T) {
				f := newFixture(t, opts)
				if st := f.l.Status(); !st.Landlock || st.LandlockABI < 2 {
					t.Skipf("MISSING on this machine: Landlock with refer (ABI %d)", st.LandlockABI)
				}
				if err := os.WriteFile(filepath.Join(f.outside, "o"), []byte("outside"), 0o666); err != nil {
					t.Fatal(err)
				}
				script := fmt.Sprintf(`
mkdir -p d1 d2 && echo x > d1/f && echo y > d1/g
ln d1/f d2/hard && echo LINK-OK
/usr/bin/python3 -c 'import os; os.rename("d1/g", "d2/g")' && echo RENAME-OK
ln %[1]s/o in-from-outside 2>/dev/null && echo OUTSIDE-LINKED
/usr/bin/python3 -c 'import os; os.rename("d2/g", "%[1]s/g")' 2>/dev/null && echo MOVED-OUT
/usr/bin/python3 -c 'import os; os.link("d1/f", "%[1]s/l")' 2>/dev/null && echo LINKED-OUT
true`, f.outside)
				r := f.run(t, context.Background(), script)
				for _, want := range []string{"LINK-OK", "RENAME-OK"} {
					if !strings.Contains(r.stdout, want) {
						t.Errorf("%s missing: a link or rename inside the workspace failed:\n%v", want, r)
					}
				}
				for _, bad := range []string{"OUTSIDE-LINKED", "MOVED-OUT", "LINKED-OUT"} {
					if strings.Contains(r.stdout, bad) {
						t.Errorf("%s: a link or rename across the workspace's edge succeeded:\n%v", bad, r)
					}
				}
			})
		}
	}
}
