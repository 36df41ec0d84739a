package main

import (
	"os"
	"path/filepath"
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
