package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toold/toold/internal/tools/skill"
)

// skillsConfig says where the Skill tool finds skills.
type skillsConfig struct {
	// Dirs are the operator's skill directories, each holding
	// NAME/SKILL.md.
	Dirs []string
	// Workspace also offers each workspace's .claude/skills.
	Workspace bool
}

type skillsFlags struct {
	dirs      *string
	workspace *bool
}

func addSkillsFlags(fs *flag.FlagSet) *skillsFlags {
	return &skillsFlags{
		dirs:      fs.String("skill-dirs", "", "comma-separated directories of skills (each NAME/SKILL.md) every session's Skill tool offers"),
		workspace: fs.Bool("workspace-skills", false, "also offer each workspace's .claude/skills/NAME/SKILL.md (they come from the repository being worked on; only for trusted workspaces)"),
	}
}

func (f *skillsFlags) config() (skillsConfig, error) {
	c := skillsConfig{Workspace: *f.workspace}
	for _, d := range splitRules(*f.dirs) {
		if !filepath.IsAbs(d) {
			return c, fmt.Errorf("--skill-dirs: %q is not an absolute path", d)
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return c, fmt.Errorf("--skill-dirs: %q is not a directory", d)
		}
		c.Dirs = append(c.Dirs, filepath.Clean(d))
	}
	return c, nil
}

func (c skillsConfig) catalog() *skill.Catalog { return skill.NewCatalog(c.Dirs, c.Workspace) }
