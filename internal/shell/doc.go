// Package shell analyses a bash command line the way bash will run it: it
// parses the text with mvdan.cc/sh (bash dialect) and lists every simple
// command, after quote removal and with exec wrappers (timeout, env,
// sh -c '...', ...) stripped, so that permission rules can be matched per
// command and a policy can tell what it cannot prove.
//
// The analysis fails towards "unprovable", never towards a weaker answer:
// whatever it does not fully understand is listed in Analysis.Unprovable,
// and the commands it did find are still listed, so deny rules keep working
// on them (security.md P2, P3). There is no cap on the number of commands
// (security.md §1 #4). It imports nothing from toold.
//
// Choices made where the documentation is silent, each the safer reading:
//
//   - Quote removal is applied before matching: r""m, \rm, "rm" and
//     $'\x72m' all give the program rm, because that is exactly what bash
//     runs; the normalized Line is what rules match. \u and \U escapes of
//     non-ASCII characters in $'...' depend on the locale and are not
//     literals.
//   - A leading ~ (and ~ after = or : in an assignment-like word, which
//     bash 5.2 also expands) is an expansion: the word is Dynamic and a
//     redirection to it is a Dynamic write.
//   - \r is an ordinary character, as for bash: TZ=UTC\recho curl x is
//     the assignment TZ=UTC\recho and the command curl x. The command is
//     still unprovable (security.md §1 #6).
//   - The lines before a syntax error are listed (bash runs them); the
//     analysis is unprovable.
//   - Commands of a nested script (sh -c, bash -c, dash -c, zsh -c, eval,
//     watch, flock -c, and a literal here-document or here-string given
//     to a shell: bash <<'EOF') carry the wrapper's assignments and
//     redirections. A shell reading a file or a pipe stays the command.
//     zsh scripts are proven only when every word is a literal (glob
//     qualifiers and parameter flags run code). Nesting deeper than
//     MaxDepth is unprovable.
//   - eval is unprovable, but its literal arguments are analysed as a
//     nested script, so that deny rules see what it runs; the eval
//     command itself is listed too.
//   - A wrapper given by a path outside /bin, /usr/bin, /sbin and
//     /usr/sbin is some other program and is not stripped; the builtins
//     command, builtin and exec are stripped only by their bare name. A
//     wrapper option the analysis does not know, or a non-literal word
//     where an option may be, is unprovable (an unquoted $T may split into
//     "5 sh -c evil"). env -S, env -C, sudo -i/-s/-D, bash -i/-k/-O are
//     unprovable.
//   - Bare xargs is stripped (as Claude Code does), and the command it
//     runs is Dynamic: its input supplies arguments, possibly options.
//     xargs with options stays the command, as do find -exec and other
//     wrappers not listed: their inner program is not analysed (R6).
//   - Arithmetic on anything but numbers is unprovable: bash evaluates a
//     variable's value as an expression, and a subscript in it runs
//     command substitutions. So are declare/typeset/local, let, [[ -eq ]]
//     on non-numbers, and builtins assigning to a name that is not a plain
//     identifier (read, printf -v, mapfile, wait -p, unset, test -v),
//     including through a word that may expand to such an option.
//   - Setting PATH, IFS, BASH_ENV, ENV, LD_*, HOME and the like in the
//     shell itself (not for one command) is unprovable: it changes what
//     later commands run. set -k is unprovable: it turns ls LD_PRELOAD=x
//     into an environment assignment.
//   - Characters bash and a reader may see differently are unprovable:
//     C0/C1 controls, DEL, NBSP and other Unicode spaces, zero-width,
//     bidi and tag characters, invalid UTF-8, and any byte outside
//     printable ASCII in a program name.
package shell
