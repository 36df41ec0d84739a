package renderers

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/google/renameio/v2"
)

// Write writes each file under dir at its Path, atomically (a temporary file
// renamed into place), creating directories as needed. A file whose content
// is already current is left untouched. It returns the paths written.
func Write(dir string, files []File) ([]string, error) {
	var written []string
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if old, err := os.ReadFile(p); err == nil && string(old) == f.Content {
			written = append(written, p)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return written, fmt.Errorf("write %s: %w", p, err)
		}
		if err := renameio.WriteFile(p, []byte(f.Content), 0o644); err != nil {
			return written, fmt.Errorf("write %s: %w", p, err)
		}
		written = append(written, p)
	}
	return written, nil
}

// State is the outcome of checking one file.
type State string

// The states Check reports.
const (
	Current  State = "current"
	Missing  State = "missing"
	Stale    State = "stale"          // rendered from other rules
	Edited   State = "edited by hand" // same rules, different text
	Orphaned State = "orphaned"       // a Bridle file no agent renders any more
)

// Finding is one file's state, with a unified diff when it is not current.
type Finding struct {
	Path  string `json:"path"`
	Agent string `json:"agent,omitempty"`
	State State  `json:"state"`
	Diff  string `json:"diff,omitempty"`
}

// Check compares dir with the files a render would write. A file counts as
// current when it matches except for the header's source line: moving to a
// new commit that leaves the rules unchanged does not make files stale.
// Bridle-generated files under dir that no agent renders are orphans.
func Check(dir string, files []File) ([]Finding, error) {
	var out []Finding
	want := map[string]bool{}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		want[filepath.Clean(p)] = true
		got, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			out = append(out, Finding{Path: p, Agent: f.Agent, State: Missing, Diff: udiff.Unified(p, p, "", f.Content)})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", p, err)
		}
		st := compare(string(got), f.Content)
		fd := Finding{Path: p, Agent: f.Agent, State: st}
		if st != Current {
			fd.Diff = udiff.Unified(p+" (on disk)", p+" (rendered)", string(got), f.Content)
		}
		out = append(out, fd)
	}
	orphans, err := orphans(dir, want)
	if err != nil {
		return nil, err
	}
	out = append(out, orphans...)
	slices.SortFunc(out, func(a, b Finding) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

func compare(got, want string) State {
	if got == want {
		return Current
	}
	if !strings.HasPrefix(got, HeaderStart) {
		return Edited
	}
	if headerLine(got, ContentPrefix) != headerLine(want, ContentPrefix) {
		return Stale
	}
	if dropLine(got, SourcePrefix) == dropLine(want, SourcePrefix) {
		return Current
	}
	return Edited
}

// headerLine returns the first line starting with prefix.
func headerLine(s, prefix string) string {
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}

func dropLine(s, prefix string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if !strings.HasPrefix(line, prefix) {
			b.WriteString(line)
		}
	}
	return b.String()
}

// orphans finds Bridle-generated markdown files under dir that are not in
// want, looking at most four directories deep and skipping hidden and
// vendored directories.
func orphans(dir string, want map[string]bool) ([]Finding, error) {
	var out []Finding
	base := strings.Count(filepath.Clean(dir), string(filepath.Separator))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != dir && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" ||
				strings.Count(filepath.Clean(p), string(filepath.Separator))-base >= 4) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".md") || want[filepath.Clean(p)] || !d.Type().IsRegular() {
			return nil
		}
		head := make([]byte, len(HeaderStart))
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		n, _ := f.Read(head)
		f.Close()
		if bytes.Equal(head[:n], []byte(HeaderStart)) {
			out = append(out, Finding{Path: p, State: Orphaned})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", dir, err)
	}
	return out, nil
}
