package exec

import "os"

// passedEnv lists the variables of toold's own environment that processes
// started by tools inherit. Everything else (tokens, the Redis URL, cloud
// credentials) stays with toold.
var passedEnv = []string{"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "TMPDIR"}

// ProcessEnviron builds the environment for tool processes from toold's
// own, keeping only the allow-listed variables. PATH gets a default when
// toold has none.
func ProcessEnviron() []string {
	env := make([]string, 0, len(passedEnv))
	for _, k := range passedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		} else if k == "PATH" {
			env = append(env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
		}
	}
	return env
}
