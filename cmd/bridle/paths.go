package main

import (
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
)

// findRules resolves a relative rules path the way a project's shared MCP
// config needs it: from the working directory, else from the nearest parent
// directory where it exists (an agent started in a subdirectory of the
// project). Absolute paths, and paths found nowhere, are returned as given,
// so the error names what the user wrote.
func findRules(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if _, err := os.Stat(p); err == nil {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	for dir := filepath.Dir(wd); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			return filepath.Join(dir, p)
		}
		if filepath.Dir(dir) == dir {
			return p
		}
	}
}

// examplesRoot is where local pattern examples may live by default: the
// work tree of the repository holding the rules (for a rules folder, the
// project: examples are its own code), else the rules' directory.
func examplesRoot(rules string) string {
	dir := rulesDir(rules)
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return dir
	}
	wt, err := repo.Worktree()
	if err != nil {
		return dir
	}
	return wt.Filesystem.Root()
}
