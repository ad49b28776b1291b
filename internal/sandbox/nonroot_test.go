package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nonRootUID is the user the escape tests run as a second time, as a toold
// deployed without root would (runAsUser in a pod). It needs no entry in
// /etc/passwd.
const nonRootUID = 10001

// escapeTests are the tests that try to get out of the sandbox.
var escapeTests = []string{
	"TestWritesOutsideTheSessionFail",
	"TestServerEnvironmentIsUnreadable",
	"TestUserSwitchDropsGroups",
	"TestNetworkOffRefusesTCP",
	"TestHiddenFilesAreUnreadable",
	"TestDeniedPortsAreRefused",
	"TestNothingOutlivesTheCall",
	"TestCancelKillsEscapedProcesses",
	"TestForkBombIsStopped",
	"TestMemoryHogIsStopped",
	"TestLimitsCannotBeRaised",
	"TestToolsOwnThreadsStayUnconfined",
	"TestBashToolThroughTheSandbox",
	"TestLinksAndRenamesBetweenDirectories",
}

// TestEscapesAsNonRootToold runs the escape tests again in a copy of this
// test binary started as uid 10001, so that both a root and a non-root
// toold are checked on this machine's kernel. Without root, commands keep
// toold's user and (here) get no cgroup: Landlock, the rlimits and the
// helper's subreaper are what hold them.
func TestEscapesAsNonRootToold(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Logf("this test binary already runs as uid %d, so every escape test above ran against a non-root toold; the root case needs a run as root", os.Geteuid())
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tmp := filepath.Join(dir, "tmp")
	bin := filepath.Join(dir, "sandbox.test")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(exe, bin); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, tmp, bin} {
		if err := os.Chown(p, nonRootUID, nonRootUID); err != nil {
			t.Fatal(err)
		}
	}
	// t.TempDir's directories are 0700; the other user must pass.
	for d := dir; d != os.TempDir() && d != filepath.Dir(d); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	cmd := exec.Command(bin, "-test.run", "^("+strings.Join(escapeTests, "|")+")$", "-test.v", "-test.count=1")
	cmd.Dir = tmp
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp, "HOME=" + tmp, "LANG=C.UTF-8"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nonRootUID, Gid: nonRootUID, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	t.Logf("escape tests as uid %d:\n%s", nonRootUID, out)
	if err != nil {
		t.Fatalf("escape tests as uid %d failed: %v", nonRootUID, err)
	}
	for _, name := range escapeTests {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass as uid %d", name, nonRootUID)
		}
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
