package enforce

import (
	"path/filepath"
	"strings"
	"sync"
)

// LinkResolver returns a CheckOptions.Resolve that resolves a path
// relative to projectDir with the file system's symbolic links, as
// ClaudeHook does for the file tools' paths: the whole path when it exists,
// else its longest existing parent (a file about to be written below a
// linked directory). A path resolving outside the project is not resolved.
// It returns nil when projectDir is empty.
func LinkResolver(projectDir string) func(rel string) (string, bool) {
	if projectDir == "" {
		return nil
	}
	root := sync.OnceValue(func() string {
		if r, err := filepath.EvalSymlinks(projectDir); err == nil {
			return r
		}
		return filepath.Clean(projectDir)
	})
	return func(rel string) (string, bool) {
		resolved, ok := resolveLinks(filepath.Join(projectDir, filepath.FromSlash(rel)))
		if !ok {
			return "", false
		}
		r, err := filepath.Rel(root(), resolved)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", false
		}
		return filepath.ToSlash(r), true
	}
}
