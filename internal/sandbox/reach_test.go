package sandbox

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// canary is what a hidden file holds; no command output may ever show it.
const canary = "CANARY-d41d8cd98f00b204"

// secretTree lays out, under dir, toold's configuration as a pod has it:
// a token file as a Kubernetes Secret volume mounts it (a link through
// ..data into a timestamped directory), a TLS key beside a certificate, a
// directory of tenant settings, and ordinary files beside them. It
// returns the paths to hide, as toold's flags name them.
func secretTree(t *testing.T, dir string) (hidden []string) {
	t.Helper()
	files := map[string]string{
		"conf/tokens/..2024_01_01/tokens": canary,
		"conf/tls/tls.key":                canary,
		"conf/tls/tls.crt":                "public certificate",
		"conf/tenants/a.json":             canary,
		"conf/readme.txt":                 "readable sibling",
		"other/visible.txt":               "readable elsewhere",
	}
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		// World-readable, as a non-root toold's own files would be to
		// its commands: only Landlock stands in the way.
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tokens := filepath.Join(dir, "conf/tokens")
	if err := os.Symlink("..2024_01_01", filepath.Join(tokens, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..data/tokens", filepath.Join(tokens, "tokens")); err != nil {
		t.Fatal(err)
	}
	return []string{filepath.Join(tokens, "tokens"), filepath.Join(dir, "conf/tls/tls.key"), filepath.Join(dir, "conf/tenants")}
}

// TestHiddenFilesAreUnreadable: toold's token file, TLS key and tenant
// settings lie in a directory commands may read (as /etc is), and in
// the workspace itself; no way of reading them works, while their
// neighbours stay readable.
func TestHiddenFilesAreUnreadable(t *testing.T) {
	for name, cgroupDir := range modes(t) {
		t.Run(name, func(t *testing.T) { testHiddenFiles(t, cgroupDir) })
	}
}

func testHiddenFiles(t *testing.T, cgroupDir string) {
	base, err := os.MkdirTemp("", "sandbox-hidden-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	hidden := secretTree(t, base)
	if os.Geteuid() == 0 {
		// The real thing: a directory in /etc, which every command
		// may read.
		etc, err := os.MkdirTemp("/etc", "toold-test-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(etc) })
		os.Chmod(etc, 0o755)
		if err := os.WriteFile(filepath.Join(etc, "tokens"), []byte(canary), 0o644); err != nil {
			t.Fatal(err)
		}
		hidden = append(hidden, filepath.Join(etc, "tokens"))
	}
	f := newFixture(t, Options{ReadDirs: []string{base}, Hidden: hidden, CgroupDir: cgroupDir})
	st := f.l.Status()
	if !st.Landlock {
		t.Skipf("MISSING on this machine: Landlock (%s); hidden files are kept by file permissions only, which Status reports", strings.Join(st.Missing, "; "))
	}
	if !st.HiddenEnforced || len(st.Hidden) != len(hidden) {
		t.Errorf("Status does not report the hidden paths as enforced: %+v", st)
	}
	// A key inside the workspace is hidden too, whatever the session's
	// write grant says.
	wsKey := filepath.Join(f.workspace, ".toold", "key")
	os.MkdirAll(filepath.Dir(wsKey), 0o777)
	// A directory that holds a hidden path is granted entry by entry, so
	// its new entries are not; its subdirectories stay writable.
	os.Mkdir(filepath.Join(f.workspace, "src"), 0o777)
	os.Chmod(filepath.Join(f.workspace, "src"), 0o777)
	if err := os.WriteFile(wsKey, []byte(canary), 0o666); err != nil {
		t.Fatal(err)
	}
	f2 := newFixture(t, Options{ReadDirs: []string{base}, Hidden: append(hidden, wsKey), CgroupDir: cgroupDir})
	f2.workspace = f.workspace

	var reads []string
	for _, h := range append(hidden, wsKey, filepath.Join(base, "conf/tokens/..2024_01_01/tokens"), filepath.Join(base, "conf/tenants/a.json")) {
		reads = append(reads,
			"cat "+h,
			"cp "+h+" ./copy && cat ./copy",
			"head -c 100 "+h,
			"/usr/bin/python3 -c 'print(open(\""+h+"\").read())'",
			"echo \"$(<"+h+")\"",
			"ln -sf "+h+" ./sym && cat ./sym",
			"ln -f "+h+" ./hard && cat ./hard",
			"cat /proc/self/root"+h,
			"cat /proc/$$/root"+h,
			"(cd "+filepath.Dir(h)+" && cat ./"+filepath.Base(h)+")",
		)
	}
	reads = append(reads, "ls "+filepath.Join(base, "conf/tenants"), "find "+base+" -type f -exec cat {} +", "grep -r CANARY "+base)
	script := strings.Join(reads, "\n") + `
cat ` + filepath.Join(base, "conf/readme.txt") + `
cat ` + filepath.Join(base, "conf/tls/tls.crt") + `
cat ` + filepath.Join(base, "other/visible.txt") + `
cat /etc/hostname >/dev/null && echo etc-readable
echo w > ./src/written && echo workspace-writable
true`
	r := f2.run(t, context.Background(), script)
	if strings.Contains(r.stdout, canary) {
		t.Errorf("a command read a hidden file:\n%v", r)
	}
	for _, want := range []string{"readable sibling", "public certificate", "readable elsewhere", "etc-readable", "workspace-writable"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("a neighbour of the hidden files is not usable (%q missing):\n%v", want, r)
		}
	}
	// Nor may a command change or remove them.
	w := f2.run(t, context.Background(), fmt.Sprintf(`echo x > %[1]s; echo x >> %[1]s; rm -f %[1]s; mv %[1]s ./moved; rm -rf %[2]s; true`, hidden[1], filepath.Join(base, "conf/tenants")))
	if data, err := os.ReadFile(hidden[1]); err != nil || string(data) != canary {
		t.Errorf("a command changed or removed a hidden file (%q, %v):\n%v", data, err, w)
	}
	if data, err := os.ReadFile(filepath.Join(base, "conf/tenants/a.json")); err != nil || string(data) != canary {
		t.Errorf("a command changed a hidden directory (%q, %v):\n%v", data, err, w)
	}
	if data, err := os.ReadFile(wsKey); err != nil || string(data) != canary {
		t.Errorf("a command changed the hidden file in its workspace (%q, %v):\n%v", data, err, w)
	}
}

// listen opens a TCP listener on loopback that accepts and closes.
func listen(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestDeniedPortsAreRefused: with the network on, toold's own port and the
// store's refuse commands on every address, while another local port
// still answers.
func TestDeniedPortsAreRefused(t *testing.T) {
	denied, other := listen(t), listen(t)
	for name, cgroupDir := range modes(t) {
		for _, network := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/network=%v", name, network), func(t *testing.T) {
				testDeniedPorts(t, Options{Network: network, DeniedPorts: []int{denied, 6379}, CgroupDir: cgroupDir}, denied, other)
			})
		}
	}
}

func testDeniedPorts(t *testing.T, opts Options, denied, other int) {
	network := opts.Network
	{
		{
			f := newFixture(t, opts)
			st := f.l.Status()
			if !st.PortsDenied {
				t.Skipf("MISSING on this machine: Landlock TCP rules (ABI %d); Status reports it: %q", st.LandlockABI, st.Missing)
			}
			script := fmt.Sprintf(`
for host in 127.0.0.1 localhost 127.0.0.2; do
  if (exec 3<>/dev/tcp/$host/%[1]d) 2>/dev/null; then echo "DENIED-OPEN $host"; fi
done
/usr/bin/python3 -c 'import socket; socket.create_connection(("127.0.0.1", %[1]d))' 2>/dev/null && echo "DENIED-OPEN python"
if (exec 3<>/dev/tcp/127.0.0.1/%[2]d); then echo OTHER-OPEN; fi
true`, denied, other)
			r := f.run(t, context.Background(), script)
			if strings.Contains(r.stdout, "DENIED-OPEN") {
				t.Errorf("a command connected to a denied port:\n%v", r)
			}
			if network != strings.Contains(r.stdout, "OTHER-OPEN") {
				t.Errorf("network %v: another port's connect went the wrong way:\n%v", network, r)
			}
		}
	}
}

// On a kernel without Landlock TCP rules (ABI < 4) or without Landlock,
// the launcher says which ports and files stay reachable, so that
// GetServerInfo's missing list and --sandbox=required see it.
func TestUnenforceableReachIsReported(t *testing.T) {
	for _, tc := range []struct {
		abi     int
		network bool
		want    []string
	}{
		{3, true, []string{"ports: commands can connect to toold's own and the store's TCP ports (6379, 50051): Landlock ABI 3 has no TCP rules"}},
		{0, true, []string{"ports:", "hidden files: without Landlock only file permissions keep commands from toold's credentials and configuration (/etc/toold/tokens/tokens)"}},
		{4, true, nil},
	} {
		l := &Launcher{status: Status{LandlockABI: tc.abi, Landlock: tc.abi > 0, Network: tc.network}}
		if err := l.setupReach(Options{Network: tc.network, Hidden: []string{"/etc/toold/tokens/tokens"}, DeniedPorts: []int{50051, 6379, 50051}}); err != nil {
			t.Fatal(err)
		}
		st := l.Status()
		missing := strings.Join(st.Missing, "\n")
		for _, w := range tc.want {
			if !strings.Contains(missing, w) {
				t.Errorf("ABI %d: missing %q lacks %q", tc.abi, missing, w)
			}
		}
		if tc.want == nil && (missing != "" || !st.PortsDenied || !st.HiddenEnforced) {
			t.Errorf("ABI %d: status %+v", tc.abi, st)
		}
		if len(st.DeniedPorts) != 2 {
			t.Errorf("ABI %d: denied ports %v, want two", tc.abi, st.DeniedPorts)
		}
	}
	l := &Launcher{}
	if err := l.setupReach(Options{DeniedPorts: []int{70000}}); err == nil {
		t.Error("port 70000 was accepted")
	}
	if err := l.setupReach(Options{Hidden: []string{"relative/path"}}); err == nil {
		t.Error("a relative hidden path was accepted")
	}
}

// An idle session's confined thread ends (its Landlock domain holds
// megabytes of kernel memory with the port rules), and the session's
// next command gets a new one, confined the same.
func TestIdleStarterEndsAndComesBack(t *testing.T) {
	old := starterIdle
	starterIdle = time.Millisecond
	t.Cleanup(func() { starterIdle = old })
	for name, cgroupDir := range modes(t) {
		t.Run(name, func(t *testing.T) {
			denied := listen(t)
			f := newFixture(t, Options{CgroupDir: cgroupDir, Network: true, DeniedPorts: []int{denied}})
			if !f.l.Status().PortsDenied {
				t.Skipf("MISSING on this machine: Landlock TCP rules (%q)", f.l.Status().Missing)
			}
			script := fmt.Sprintf(`if (exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null; then echo OPEN; else echo SHUT; fi`, denied)
			for i := range 5 {
				// Each command finds the last thread ended idle.
				if r := f.run(t, context.Background(), script); !strings.Contains(r.stdout, "SHUT") {
					t.Fatalf("command %d after an idle end is not confined:\n%v", i, r)
				}
				waitNoConfinedThreads(t)
			}
		})
	}
}

// waitNoConfinedThreads waits until toold has no confined thread left.
func waitNoConfinedThreads(t *testing.T) {
	t.Helper()
	for len(confinedThreads(t)) > 0 {
		time.Sleep(time.Millisecond)
	}
}
