package main

import (
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/bash"
	"github.com/toold/toold/internal/tools/edit"
	"github.com/toold/toold/internal/tools/glob"
	"github.com/toold/toold/internal/tools/grep"
	"github.com/toold/toold/internal/tools/read"
	"github.com/toold/toold/internal/tools/write"
)

// builtinTools is the registry of built-in tools, registered explicitly.
func builtinTools() (*tool.Registry, error) {
	return tool.NewRegistry(
		bash.New(bash.Options{}),
		read.New(read.Options{}),
		write.New(),
		edit.New(),
		glob.New(),
		grep.New(grep.Options{}),
	)
}
