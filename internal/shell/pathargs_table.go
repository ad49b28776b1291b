package shell

import "strings"

// The table of programs whose arguments are files. A program missing
// here is unknownCommand: each of its arguments is a Mention, which the
// policy still checks against deny rules and the working directories.
// The table errs towards calling an argument a path: a word wrongly taken
// for a file at worst asks, a file wrongly taken for a word is a hole.

var (
	reader   = fileSpec{operand: Read}
	writer   = fileSpec{operand: Write}
	names    = fileSpec{operand: Names}
	editor   = fileSpec{operand: Read | Write}
	checksum = fileSpec{operand: Read, files: map[string]Access{"--check": Read}}
)

// grepSpec is grep and its relatives: the first operand is the pattern
// unless -e or -f gave it.
var grepSpec = fileSpec{
	operand: Read, skip: 1, script: []string{"-e", "-f", "--regexp", "--file"},
	values: "eABCmdD",
	longs: []string{"regexp", "after-context", "before-context", "context", "max-count", "directories", "devices",
		"include", "exclude", "exclude-dir", "label", "color", "colour", "binary-files", "group-separator"},
	files:   map[string]Access{"-f": Read, "--file": Read, "--exclude-from": Read},
	recurse: []string{"-r", "-R", "--recursive", "--dereference-recursive"}, dirDot: true,
}

var rgSpec = fileSpec{
	operand: Read, skip: 1, script: []string{"-e", "-f", "--regexp", "--file", "--files", "--type-list"},
	always: true, dirDot: true,
	values: "eABCgjmMtTEdr",
	longs: []string{"regexp", "after-context", "before-context", "context", "glob", "iglob", "threads", "max-count",
		"max-columns", "type", "type-not", "type-add", "type-clear", "encoding", "max-depth", "replace", "color", "colors",
		"sort", "sortr", "max-filesize", "path-separator", "context-separator", "field-match-separator", "engine", "pre-glob",
		"dfa-size-limit", "regex-size-limit", "hostname-bin", "hyperlink-format", "field-context-separator"},
	files: map[string]Access{"-f": Read, "--file": Read, "--ignore-file": Read, "--pre": Read},
}

var searchSpec = fileSpec{operand: Read, skip: 1, always: true, dirDot: true, values: "ABCGgm",
	longs: []string{"after", "before", "context", "file-search-regex", "max-count", "depth", "ignore", "ignore-dir", "type"}}

var sedSpec = fileSpec{
	operand: Read, skip: 1, script: []string{"-e", "-f", "--expression", "--file"},
	values: "el", longs: []string{"expression", "line-length"},
	files: map[string]Access{"-f": Read, "--file": Read}, optional: "i",
	inPlace: []string{"-i", "--in-place"}, inline: true,
}

var awkSpec = fileSpec{
	operand: Read, skip: 1, script: []string{"-f", "--file", "-e", "--source"},
	values: "vFeEl", longs: []string{"assign", "field-separator", "source", "load", "dump-variables", "profile"},
	files:  map[string]Access{"-f": Read, "--file": Read, "-i": Read, "--include": Read, "-E": Read, "--exec": Read},
	inline: true,
}

var jqSpec = fileSpec{
	operand: Read, skip: 1, script: []string{"-f", "--from-file"},
	values: "L", longs: []string{"indent"},
	files: map[string]Access{"-f": Read, "--from-file": Read},
	pairs: map[string]Access{"--arg": 0, "--argjson": 0, "--slurpfile": Read, "--rawfile": Read},
	stop:  []string{"--args", "--jsonargs"},
}

// scriptSpec is an interpreter: its first operand is a script it reads,
// unless an option gave the program inline; the other operands are the
// script's own arguments.
func scriptSpec(prog []string, values string) fileSpec {
	return fileSpec{first: Read, operand: Mention, prog: prog, values: values, mentions: true, inline: true}
}

// vimSpec: -c and --cmd run Ex commands (:r f reads a file).
var vimSpec = fileSpec{operand: Read | Write, code: []string{"-c", "--cmd"}, values: "T",
	files: map[string]Access{"-S": Read, "-u": Read, "-U": Read, "-s": Read, "-w": Write, "-W": Write, "-i": Read | Write}}

var copySpec = fileSpec{
	operand: Read, last: Write, values: "S", longs: []string{"suffix", "backup", "sparse", "reflink", "preserve", "no-preserve"},
	files:   map[string]Access{"-t": Write, "--target-directory": Write},
	target:  []string{"-t", "--target-directory"},
	recurse: []string{"-r", "-R", "-a", "--recursive", "--archive"},
}

var fileCommands = map[string]fileSpec{
	// Read a file's content.
	"cat": reader, "tac": reader, "rev": reader, "more": reader, "most": reader, "pg": reader,
	"nl":       {operand: Read, values: "bdfhilnsvw"},
	"head":     {operand: Read, values: "nc", longs: []string{"lines", "bytes"}},
	"tail":     {operand: Read, values: "ncs", longs: []string{"lines", "bytes", "pid", "sleep-interval", "max-unchanged-stats"}},
	"less":     {operand: Read, values: "bhjxyzPTp#", files: map[string]Access{"-o": Write, "-O": Write, "-k": Read, "--log-file": Write, "--LOG-FILE": Write, "--lesskey-file": Read}},
	"wc":       {operand: Read, files: map[string]Access{"--files0-from": Read}},
	"sort":     {operand: Read, values: "kStT", longs: []string{"key", "field-separator", "buffer-size", "temporary-directory", "parallel", "batch-size", "compress-program", "sort"}, files: map[string]Access{"-o": Write, "--output": Write, "--files0-from": Read}},
	"uniq":     {operand: Read, last: Write, values: "fsw", longs: []string{"skip-fields", "skip-chars", "check-chars", "group", "all-repeated"}},
	"cut":      {operand: Read, values: "bcdf", longs: []string{"bytes", "characters", "delimiter", "fields", "output-delimiter"}},
	"paste":    {operand: Read, values: "d", longs: []string{"delimiters"}},
	"join":     {operand: Read, values: "aejot12", longs: []string{"check-order"}},
	"comm":     {operand: Read, longs: []string{"output-delimiter"}},
	"fold":     {operand: Read, values: "w", longs: []string{"width"}},
	"fmt":      {operand: Read, values: "wpg", longs: []string{"width", "prefix", "goal"}},
	"pr":       {operand: Read, values: "hNowlW", longs: []string{"header", "width", "length", "indent"}},
	"column":   {operand: Read, values: "cstoNRHWdEr", longs: []string{"columns", "separator", "output-separator", "table-columns", "table-name"}},
	"expand":   {operand: Read, values: "t", longs: []string{"tabs"}},
	"unexpand": {operand: Read, values: "t", longs: []string{"tabs"}},
	"od":       {operand: Read, values: "AjNtwS", longs: []string{"address-radix", "skip-bytes", "read-bytes", "format", "width", "strings"}},
	"xxd":      {operand: Read, last: Write, values: "cglosn", longs: []string{"cols", "groupsize", "len", "seek", "name"}},
	"hexdump":  {operand: Read, values: "ens", files: map[string]Access{"-f": Read}},
	"hd":       {operand: Read, values: "ens", files: map[string]Access{"-f": Read}},
	"strings":  {operand: Read, values: "netT", longs: []string{"bytes", "radix", "encoding", "target"}},
	"file":     {operand: Read, values: "eFP", longs: []string{"exclude", "separator", "parameter"}, files: map[string]Access{"-m": Read, "--magic-file": Read, "-f": Read, "--files-from": Read}},
	"base64":   {operand: Read, values: "w", longs: []string{"wrap"}, files: map[string]Access{"-o": Write, "--output": Write, "-i": Read, "--input": Read}},
	"base32":   {operand: Read, values: "w", longs: []string{"wrap"}},
	"basenc":   {operand: Read, values: "w", longs: []string{"wrap"}},
	"md5sum":   checksum, "sha1sum": checksum, "sha224sum": checksum, "sha256sum": checksum, "sha384sum": checksum,
	"sha512sum": checksum, "b2sum": checksum, "cksum": checksum, "sum": checksum, "shasum": checksum,
	"cmp":   {operand: Read, values: "in", longs: []string{"ignore-initial", "bytes"}},
	"diff":  {operand: Read, values: "CUFIxLWD", longs: []string{"context", "unified", "show-function-line", "ignore-matching-lines", "exclude", "label", "width", "ifdef", "line-format", "old-line-format", "new-line-format", "unchanged-line-format", "old-group-format", "new-group-format", "unchanged-group-format", "changed-group-format", "horizon-lines", "color", "palette", "tabsize"}, files: map[string]Access{"-X": Read, "--exclude-from": Read, "--from-file": Read, "--to-file": Read, "-S": Read, "--starting-file": Read}, recurse: []string{"-r", "--recursive"}},
	"sdiff": {operand: Read, values: "wI", files: map[string]Access{"-o": Write, "--output": Write}},
	"diff3": {operand: Read, values: "L", longs: []string{"label"}},
	"patch": {operand: Read | Write, values: "pBFzDVYg", files: map[string]Access{"-i": Read, "--input": Read, "-o": Write, "--output": Write, "-r": Write, "--reject-file": Write}, chdir: []string{"-d", "--directory"}},
	"tr":    {},
	"iconv": {operand: Read, values: "ft", longs: []string{"from-code", "to-code"}, files: map[string]Access{"-o": Write, "--output": Write}},
	"zcat":  reader, "bzcat": reader, "xzcat": reader, "zstdcat": reader, "lz4cat": reader, "gzcat": reader, "zless": reader, "zmore": reader,
	"gzip": editor, "gunzip": editor, "bzip2": editor, "bunzip2": editor, "xz": editor, "unxz": editor,
	"zstd": {operand: Read | Write, files: map[string]Access{"-o": Write}}, "unzstd": editor, "lz4": editor, "compress": editor, "uncompress": editor,
	"grep": grepSpec, "egrep": grepSpec, "fgrep": grepSpec, "zgrep": grepSpec, "rgrep": func() fileSpec { s := grepSpec; s.always = true; return s }(),
	"rg": rgSpec, "ag": searchSpec, "ack": searchSpec, "pt": searchSpec,
	"sed": sedSpec, "gsed": sedSpec,
	"awk": awkSpec, "gawk": awkSpec, "mawk": awkSpec, "nawk": awkSpec,
	"jq": jqSpec, "gojq": jqSpec, "yq": {operand: Read, skip: 1, script: []string{"--from-file"}, files: map[string]Access{"--from-file": Read}, optional: "i", inPlace: []string{"-i", "--inplace"}},
	"xmllint": {operand: Read, files: map[string]Access{"--output": Write, "-o": Write}},
	"csvlook": reader, "mlr": {operand: Read, mentions: true},
	"vim": vimSpec, "vi": vimSpec, "nvim": vimSpec, "view": vimSpec, "ex": vimSpec, "nano": editor, "emacs": {operand: Read | Write, code: []string{"--eval", "-eval"}, files: map[string]Access{"-l": Read, "--load": Read}}, "ed": editor,
	"open": reader, "xdg-open": reader,
	"source": {first: Read, operand: Mention}, ".": {first: Read, operand: Mention},

	// Interpreters and shells run a script file (with -c and the like the
	// analysis unwraps the inline script instead).
	"python": scriptSpec([]string{"-c", "-m"}, "WXQ"), "python2": scriptSpec([]string{"-c", "-m"}, "WXQ"),
	"python3": scriptSpec([]string{"-c", "-m"}, "WXQ"), "pypy": scriptSpec([]string{"-c", "-m"}, "WX"), "pypy3": scriptSpec([]string{"-c", "-m"}, "WX"),
	"perl": scriptSpec([]string{"-e", "-E"}, "IMmdxlC0"), "ruby": scriptSpec([]string{"-e"}, "IrCEF"),
	"node": scriptSpec([]string{"-e", "--eval", "-p", "--print"}, "r"), "nodejs": scriptSpec([]string{"-e", "--eval", "-p", "--print"}, "r"),
	"bun": scriptSpec([]string{"-e", "--eval"}, ""), "deno": scriptSpec(nil, ""), "tsx": scriptSpec([]string{"-e", "--eval"}, ""), "ts-node": scriptSpec([]string{"-e", "--eval"}, ""),
	"php": scriptSpec([]string{"-r"}, "dc"), "lua": scriptSpec([]string{"-e"}, "l"), "tclsh": scriptSpec(nil, ""), "Rscript": scriptSpec([]string{"-e"}, ""),
	"sh": scriptSpec([]string{"-c"}, "oO"), "bash": scriptSpec([]string{"-c"}, "oO"), "dash": scriptSpec([]string{"-c"}, "o"), "ash": scriptSpec([]string{"-c"}, "o"),
	"zsh": scriptSpec([]string{"-c"}, "o"), "ksh": scriptSpec([]string{"-c"}, "o"), "mksh": scriptSpec([]string{"-c"}, "o"),

	// Copy, move, link, archive: sources are read, the destination written.
	"cp": copySpec, "install": func() fileSpec { s := copySpec; s.values = "mgoS"; return s }(),
	"mv": func() fileSpec { s := copySpec; s.operand = Read | Write; s.recurse = nil; return s }(),
	// ln's sources are counted as read: a hard link to a file is a second
	// name for its content.
	"ln":     {operand: Read, last: Write, values: "S", files: map[string]Access{"-t": Write, "--target-directory": Write}, target: []string{"-t", "--target-directory"}},
	"rsync":  {operand: Read | Recursive, last: Write, values: "eBfT", longs: []string{"rsh", "rsync-path", "filter", "exclude", "include", "temp-dir", "partial-dir", "compare-dest", "copy-dest", "link-dest", "chmod", "chown", "info", "debug"}, files: map[string]Access{"--exclude-from": Read, "--include-from": Read, "--files-from": Read, "--password-file": Read, "--log-file": Write}},
	"scp":    {operand: Read | Recursive, last: Write, values: "cDJlPSoX", files: map[string]Access{"-F": Read, "-i": Read}},
	"zip":    {first: Write, operand: Read, recurse: []string{"-r", "-R", "--recurse-paths"}, values: "bnPtx", files: map[string]Access{"-O": Write, "--output-file": Write, "-i": Read}},
	"unzip":  {operand: Names, first: Read, values: "Px", files: map[string]Access{"-d": Write}},
	"split":  {operand: Read, last: Write, values: "abCdlnt", longs: []string{"suffix-length", "bytes", "line-bytes", "lines", "number", "additional-suffix", "filter", "separator"}},
	"csplit": {first: Read, values: "bfnk", files: map[string]Access{"-f": Write, "--prefix": Write}},
	"tee":    writer,
	"touch":  {operand: Write, values: "dt", longs: []string{"date", "time"}, files: map[string]Access{"-r": Names, "--reference": Names}},
	"mkdir":  {operand: Write, values: "m", longs: []string{"mode", "context"}},
	"rmdir":  writer, "unlink": writer,
	"rm":       {operand: Write, recurse: []string{"-r", "-R", "--recursive"}},
	"shred":    {operand: Read | Write, values: "nsu", longs: []string{"iterations", "size", "random-source"}},
	"truncate": {operand: Write, values: "s", longs: []string{"size"}, files: map[string]Access{"-r": Names, "--reference": Names}},
	"chmod":    {operand: Write, skip: 1, script: []string{"--reference"}, files: map[string]Access{"--reference": Names}},
	"chown":    {operand: Write, skip: 1, script: []string{"--reference"}, files: map[string]Access{"--reference": Names}},
	"chgrp":    {operand: Write, skip: 1, script: []string{"--reference"}, files: map[string]Access{"--reference": Names}},
	"make":     {operand: Mention, values: "jlIoW", longs: []string{"jobs", "load-average", "include-dir", "old-file", "what-if"}, files: map[string]Access{"-f": Read, "--file": Read, "--makefile": Read}, chdir: []string{"-C", "--directory"}},
	"curl":     {operand: Mention, atFile: true, mentions: true, files: map[string]Access{"-o": Write, "--output": Write, "-T": Read, "--upload-file": Read, "-K": Read, "--config": Read, "-D": Write, "--dump-header": Write, "-c": Write, "--cookie-jar": Write, "-b": Read, "--cookie": Read, "--cacert": Read, "-E": Read, "--cert": Read, "--key": Read, "--netrc-file": Read, "--trace": Write, "--trace-ascii": Write, "--stderr": Write}, values: "dFHAeXuUxwrmYyzCQ"},
	"wget":     {operand: Mention, mentions: true, files: map[string]Access{"-O": Write, "--output-document": Write, "-o": Write, "--output-file": Write, "-a": Write, "--append-output": Write, "-i": Read, "--input-file": Read, "--post-file": Read, "--body-file": Read, "--load-cookies": Read, "--save-cookies": Write, "--config": Read}, chdir: []string{"-P", "--directory-prefix"}},

	// Use names only: list, stat, change directory.
	"ls": names, "stat": {operand: Names, values: "c", longs: []string{"format", "printf"}}, "du": {operand: Names, values: "Bdt", longs: []string{"block-size", "max-depth", "threshold", "exclude", "time-style"}, files: map[string]Access{"-X": Read, "--exclude-from": Read, "--files0-from": Read}},
	"tree": {operand: Names, values: "LPIH", files: map[string]Access{"-o": Write, "--fromfile": Read}}, "realpath": names, "readlink": names,
	"test": names, "[": names, "cd": names, "pushd": names, "chdir": names, "pwd": {}, "dirname": {}, "basename": {},
	"echo": {}, "printf": {}, "true": {}, "false": {}, ":": {}, "sleep": {}, "seq": {}, "yes": {}, "expr": {}, "date": {operand: Mention, files: map[string]Access{"-f": Read, "--file": Read, "-r": Names, "--reference": Names}}, "which": {}, "whereis": {}, "type": {}, "exit": {}, "return": {}, "export": {}, "unset": {}, "set": {},
	"find": {special: findPaths},
	// xargs with options of its own stays the command (without, the
	// analysis unwraps it): the program it runs gets file names from the
	// input. With no arguments at all it runs echo, which opens nothing.
	"xargs": {special: func(args []word) []PathArg {
		if len(args) == 0 {
			return nil
		}
		return append(unknownCommand.paths(args), PathArg{Access: Read | Write, Dynamic: true})
	}},
	"dd":  {special: ddPaths},
	"tar": {special: tarPaths},
	"git": {special: gitPaths},
}

// findPaths: start points are named (walked, but only names are read);
// -exec, -ok and the like read every file found; -fprint writes.
func findPaths(args []word) []PathArg {
	var out []PathArg
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a.lit && (strings.HasPrefix(a.s, "-") && a.s != "-" || a.s == "(" || a.s == "!") {
			break
		}
		out = append(out, PathArg{Path: a.s, Access: Names, Dynamic: !a.lit})
	}
	if len(out) == 0 {
		out = append(out, PathArg{Path: ".", Access: Names})
	}
	starts := len(out)
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case !a.lit:
		case strings.HasPrefix(a.s, "-exec") || strings.HasPrefix(a.s, "-ok"):
			for j := range out[:starts] {
				out[j].Access = Read | Recursive
			}
		case strings.HasPrefix(a.s, "-fprint") || a.s == "-fls":
			if i+1 < len(args) {
				out = append(out, PathArg{Path: args[i+1].s, Access: Write, Dynamic: !args[i+1].lit})
			}
		case a.s == "-newer" || a.s == "-anewer" || a.s == "-cnewer" || a.s == "-samefile" || strings.HasPrefix(a.s, "-newer"):
			if i+1 < len(args) {
				out = append(out, PathArg{Path: args[i+1].s, Access: Names, Dynamic: !args[i+1].lit})
			}
		case a.s == "-files0-from":
			if i+1 < len(args) {
				out = append(out, PathArg{Path: args[i+1].s, Access: Read, Dynamic: !args[i+1].lit})
			}
		}
	}
	return out
}

// ddPaths: if= is read, of= written.
func ddPaths(args []word) []PathArg {
	var out []PathArg
	for _, a := range args {
		switch {
		case strings.HasPrefix(a.s, "if="):
			out = append(out, PathArg{Path: a.s[3:], Access: Read, Dynamic: !a.lit})
		case strings.HasPrefix(a.s, "of="):
			out = append(out, PathArg{Path: a.s[3:], Access: Write, Dynamic: !a.lit})
		default:
			out = append(out, PathArg{Path: a.s, Access: Mention, Dynamic: !a.lit})
		}
	}
	return out
}

// tarPaths reads tar's modes: creating reads the operands (recursively)
// and writes the archive; extracting and listing read the archive and
// write below -C (or the cwd). Old-style bundled letters (tar czf a.tgz
// dir) are read as options.
func tarPaths(args []word) []PathArg {
	if len(args) > 0 && args[0].lit && !strings.HasPrefix(args[0].s, "-") && strings.Trim(args[0].s, "AcdrtuxfzjJavpPkmOSWhlC") == "" {
		args = append([]word{{s: "-" + args[0].s, lit: true}}, args[1:]...)
	}
	create := false
	for _, a := range args {
		if !a.lit || !strings.HasPrefix(a.s, "-") {
			continue
		}
		if strings.HasPrefix(a.s, "--") {
			create = create || strings.HasPrefix(a.s, "--create") || strings.HasPrefix(a.s, "--append") || strings.HasPrefix(a.s, "--update")
		} else if strings.ContainsAny(a.s[1:], "cru") {
			// a letter could be a -f value (-fc); taking it for a mode
			// only makes the operands reads.
			create = true
		}
	}
	spec := fileSpec{operand: Names, values: "bHLVNg", longs: []string{"exclude", "transform", "owner", "group", "mode", "mtime", "format", "blocking-factor", "label", "newer", "use-compress-program", "to-command", "checkpoint-action", "strip-components"},
		files: map[string]Access{"-f": Read, "--file": Read, "-T": Read, "--files-from": Read, "-X": Read, "--exclude-from": Read},
		chdir: []string{"-C", "--directory"}, fixedFiles: true}
	if create {
		spec.operand = Read | Recursive
		spec.files = map[string]Access{"-f": Write, "--file": Write, "-T": Read, "--files-from": Read, "-X": Read, "--exclude-from": Read}
	} else {
		// Extraction writes into the -C directory.
		spec.chdir = nil
		spec.files["-C"], spec.files["--directory"] = Write|Recursive, Write|Recursive
	}
	return spec.paths(args)
}

// gitPaths: global -C moves the repository; every operand of the
// subcommand may be a path in the work tree, read (git add, diff, show)
// or written (checkout, restore, rm); REV:path names a file's committed
// content, which git show and cat-file print.
func gitPaths(args []word) []PathArg {
	spec := fileSpec{operand: Read | Write, chdir: []string{"-C"}, values: "c",
		longs: []string{"namespace", "exec-path", "config-env", "super-prefix"},
		files: map[string]Access{"-F": Read, "--file": Read, "--pathspec-from-file": Read, "-o": Write, "--output": Write, "--git-dir": Names, "--work-tree": Names}}
	// REV:path names path as git show and cat-file print it: relative to
	// the -C directory when it starts with ./ or ../, else to the
	// repository's top, taken to be the directory the command runs in.
	words := make([]word, len(args))
	for i, a := range args {
		words[i] = a
		if _, rest, ok := strings.Cut(a.s, ":"); ok && a.lit && !strings.HasPrefix(a.s, "-") && !strings.Contains(a.s, "://") {
			if rest == "" {
				rest = "."
			}
			words[i].s = rest
		}
	}
	return spec.paths(words)
}
