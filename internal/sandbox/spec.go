package sandbox

// helperSpec is how one command is confined. toold applies it itself where
// a cgroup holds the command; otherwise it sends it to a helper, which
// trusts it: only toold starts the helper with privileges, and a confined
// command that starts it again can only narrow its own confinement
// further.
type helperSpec struct {
	// Path is the program to run (bash).
	Path string `json:"path"`
	// UID and GID switch the user when SwitchUser is set; supplementary
	// groups are dropped.
	SwitchUser bool `json:"switch_user,omitempty"`
	UID        int  `json:"uid,omitempty"`
	GID        int  `json:"gid,omitempty"`
	// Landlock applies the rules below; without it only no_new_privs is
	// set.
	Landlock bool `json:"landlock,omitempty"`
	// LandlockABI is the kernel's Landlock ABI version, as probed.
	LandlockABI int `json:"landlock_abi,omitempty"`
	// ReadDirs may be read and executed; WriteDirs also written; DevFiles
	// are device files opened for reading and writing (/dev/null).
	ReadDirs  []string `json:"read_dirs,omitempty"`
	WriteDirs []string `json:"write_dirs,omitempty"`
	DevFiles  []string `json:"dev_files,omitempty"`
	// DenyNetwork denies TCP (and, where handled, UDP) connect and bind.
	DenyNetwork bool `json:"deny_network,omitempty"`
	// Hidden are paths no rule grants, whatever ReadDirs and WriteDirs
	// say: toold's credentials, keys and configuration.
	Hidden []string `json:"hidden,omitempty"`
}
