package shell

import (
	"slices"
	"strings"
	"testing"
)

func TestDestructive(t *testing.T) {
	cases := []struct {
		src  string
		want []string // substrings, one per warning, in order
	}{
		// rm -r/-f in any order and spelling
		{"rm -rf build", []string{"recursively and without asking"}},
		{"rm -fr build", []string{"recursively and without asking"}},
		{"rm -r -f build", []string{"recursively and without asking"}},
		{"rm --recursive --force build", []string{"recursively and without asking"}},
		{"rm build -R", []string{"deletes recursively"}},
		{"rm -f x", []string{"without asking"}},
		{"rm -- -rf", nil},
		{"rm x", nil},
		{"/bin/rm -rf build", []string{"recursively"}},
		{"timeout 5 sudo rm -rf build", []string{"recursively"}},
		// https://code.claude.com/docs/en/permission-modes#critical-paths
		{"rm -rf /", []string{"recursively", "removes /"}},
		{"rm -rf ~", []string{"recursively", "removes ~"}},
		{"rm -rf /usr/", []string{"recursively", "removes /usr/"}},
		{`rm -rf "$DIR"/*`, []string{"recursively", `removes "$DIR"/*`}},
		{"rmdir ..", []string{"removes .."}},
		{"rm -rf build/", []string{"recursively"}},
		// ... including inside substitutions
		{`echo "$(rm -rf ~)"`, []string{"recursively", "removes ~"}},
		// git, after global options (security.md §1 #8)
		{"git reset --hard HEAD~1", []string{"reset --hard"}},
		{"git -C /repo reset --hard", []string{"reset --hard"}},
		{"git push --force origin main", []string{"push --force"}},
		{"git push -f", []string{"push --force"}},
		{"git push --force-with-lease", []string{"push --force"}},
		{"git push origin +main", []string{"+main"}},
		{"git push origin main", nil},
		{"git clean -fdx", []string{"clean -f"}},
		{"git clean -n", nil},
		{"git checkout -- .", []string{"checkout ."}},
		{"git checkout main", nil},
		{"git restore .", []string{"restore ."}},
		{"git branch -D topic", []string{"branch -D"}},
		{"git branch -d topic", nil},
		{"git stash drop", []string{"stash drop"}},
		// other tools
		{"dd if=/dev/zero of=/dev/sda", []string{"/dev/sda"}},
		{"mkfs.ext4 /dev/sdb1", []string{"file system"}},
		{"chmod -R 777 .", []string{"recursively"}},
		{"chown --recursive me .", []string{"recursively"}},
		{"chmod 644 x", nil},
		{"find . -name '*.o' -delete", []string{"deletes every file"}},
		{`find . -exec rm {} \;`, []string{"runs rm"}},
		{"truncate -s 0 log", []string{"truncates"}},
		{"shred x", []string{"overwrites"}},
		// > truncates a file; >>, /dev/null and dups do not
		{"echo x > out", []string{"> out"}},
		{"echo x >| out", []string{">| out"}},
		{"echo x &> out", []string{"&> out"}},
		{"echo x >> out", nil},
		{"echo x > /dev/null 2>&1", nil},
		{"git status && go test ./... 2>&1 | tail -20", nil},
	}
	for _, c := range cases {
		got := Analyze(c.src).Destructive()
		if len(got) != len(c.want) {
			t.Errorf("Destructive(%q) = %q, want %d warnings like %q", c.src, got, len(c.want), c.want)
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], c.want[i]) {
				t.Errorf("Destructive(%q)[%d] = %q, want it to contain %q", c.src, i, got[i], c.want[i])
			}
		}
	}
}

func TestRemovalTargets(t *testing.T) {
	cases := []struct {
		src  string
		want []string
	}{
		// https://code.claude.com/docs/en/permission-modes#critical-paths
		{"rm -rf a b", []string{"a", "b"}},
		{"rm a -rf b", []string{"a", "b"}},
		{"rm -- -rf /", []string{"-rf", "/"}},
		{"rm -", []string{"-"}},
		{`rm -rf "$DIR"/*`, []string{`"$DIR"/*`}},
		{"rmdir -p a/b", []string{"a/b"}},
		{"/usr/bin/rm x", []string{"x"}},
		{"ls -rf a", nil},
		{"rm", nil},
	}
	for _, c := range cases {
		got := Analyze(c.src).Commands[0].RemovalTargets()
		if !slices.Equal(got, c.want) {
			t.Errorf("RemovalTargets(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}

func TestCriticalLooking(t *testing.T) {
	// https://code.claude.com/docs/en/permission-modes#critical-paths
	for _, p := range []string{"/", "/*", "//", "/usr", "/etc/", "/data/*", "~", "~/", "~/*", "~root",
		"$HOME", `"$HOME"`, "${HOME}/", ".", "..", "./", "../..", "*", "./*", `"$DIR"/*`, "$DIR/"} {
		if !CriticalLooking(p) {
			t.Errorf("CriticalLooking(%q) = false", p)
		}
	}
	for _, p := range []string{"build", "build/", "/usr/local", "~/project", "$DIR/build", `"$DIR"`, "./x", "*.o", "-"} {
		if CriticalLooking(p) {
			t.Errorf("CriticalLooking(%q) = true", p)
		}
	}
}
