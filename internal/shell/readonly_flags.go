package shell

import "strings"

// Dual-use flags: options of otherwise read-only commands that write files
// or run programs (security.md §1 #11, §2, R9). The checks err on the side
// of "not read-only": a short option cluster containing a dangerous letter
// is refused even where the letter would be the value of another option,
// and a long option is refused when it could be an abbreviation of a
// dangerous one (GNU getopt_long and Perl's Getopt::Long accept
// unambiguous prefixes: sort --out=x is --output=x).

// optRule lists a command's dangerous short letters and long names.
type optRule struct {
	shorts string
	longs  []string
	// singleDashLong: the parser also takes -name for --name.
	singleDashLong bool
}

// allows reports whether no argument is a dangerous option.
func (r optRule) allows(args []string) bool {
	for _, a := range args {
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		if a[1] == '-' {
			name, _, _ := strings.Cut(a[2:], "=")
			if name != "" && r.abbreviates(name) {
				return false
			}
			continue
		}
		if r.singleDashLong {
			name, _, _ := strings.Cut(a[1:], "=")
			if r.abbreviates(name) {
				return false
			}
		}
		if strings.ContainsAny(a[1:], r.shorts) {
			return false
		}
	}
	return true
}

func (r optRule) abbreviates(name string) bool {
	for _, l := range r.longs {
		if strings.HasPrefix(l, name) {
			return true
		}
	}
	return false
}

var (
	rgRule   = optRule{shorts: "z", longs: []string{"pre", "hostname-bin", "search-zip"}}
	sortRule = optRule{shorts: "o", longs: []string{"output", "compress-program"}}
	// tree -o writes its listing to a file; -R reruns tree with -o in
	// every directory.
	treeRule = optRule{shorts: "oR", longs: []string{"output"}}
	// file -C compiles a magic file and writes it.
	fileRule = optRule{shorts: "C", longs: []string{"compile"}}
	// diff -l pipes its output through pr, found in PATH.
	diffRule = optRule{shorts: "l", longs: []string{"paginate"}}
	agRule   = optRule{longs: []string{"pager"}}
	// ack's --output evaluated Perl in older versions; --ackrc loads options
	// (including a pager) from a file.
	ackRule = optRule{longs: []string{"pager", "output", "ackrc"}, singleDashLong: true}
)

// findOK refuses the primaries that run programs, delete, or write files.
// find does not abbreviate primaries, but a prefix check costs nothing.
func findOK(args []string) bool {
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-exec"), strings.HasPrefix(a, "-ok"),
			a == "-delete", strings.HasPrefix(a, "-fprint"), a == "-fls":
			return false
		}
	}
	return true
}

// uniqOK refuses a second operand, which uniq takes as its output file. An
// option after an operand is refused too: with POSIXLY_CORRECT set it would
// be an operand.
func uniqOK(args []string) bool {
	operands, endOpts := 0, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case endOpts || a == "-" || !strings.HasPrefix(a, "-"):
			operands++
			continue
		case operands > 0:
			return false
		case a == "--":
			endOpts = true
			continue
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if name == "" {
				return false
			}
			if !hasValue && (strings.HasPrefix("skip-fields", name) ||
				strings.HasPrefix("skip-chars", name) || strings.HasPrefix("check-chars", name)) {
				i++ // the value is the next argument
			}
			continue
		}
		for j := 1; j < len(a); j++ {
			if strings.IndexByte("fsw", a[j]) >= 0 {
				if j == len(a)-1 {
					i++ // -f N: the value is the next argument
				}
				break
			}
		}
	}
	return operands < 2
}
