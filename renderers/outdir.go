package renderers

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff"

	"github.com/bridle-dev/bridle/agents"
)

// ErrUnsafePath is returned for a render whose path would leave the output
// directory: absolute, climbing out with "..", or passing through a
// symbolic link (a linked subdirectory or a linked file).
var ErrUnsafePath = errors.New("path leaves the output directory")

// Write writes each file under dir at its Path, atomically (a temporary file
// renamed into place), creating directories as needed. A file whose content
// is already current is left untouched. It returns the paths written.
//
// Writes never leave dir: a path that is not local, or that has a symbolic
// link below dir among its directories or as the file itself, is refused
// with ErrUnsafePath before anything is written for it, and the writes go
// through an os.Root, which also stops a link made while they run.
func Write(dir string, files []File) ([]string, error) {
	var written []string
	if len(files) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", dir, err)
	}
	defer root.Close()
	// Every path first, so that one unsafe path leaves nothing written.
	rels := make([]string, len(files))
	for i, f := range files {
		if rels[i], err = localPath(root, f.Path); err != nil {
			return nil, fmt.Errorf("write %s: %w", filepath.Join(dir, filepath.FromSlash(f.Path)), err)
		}
	}
	for i, f := range files {
		p, rel := filepath.Join(dir, filepath.FromSlash(f.Path)), rels[i]
		if old, err := root.ReadFile(rel); err == nil && string(old) == f.Content && modeOK(root, rel, f) {
			written = append(written, p)
			continue
		}
		if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return written, fmt.Errorf("write %s: %w", p, err)
		}
		if err := writeAtomic(root, rel, []byte(f.Content), f.mode()); err != nil {
			return written, fmt.Errorf("write %s: %w", p, err)
		}
		written = append(written, p)
	}
	return written, nil
}

// mode is the file mode f is written with.
func (f File) mode() fs.FileMode {
	if f.Executable {
		return 0o755
	}
	return 0o644
}

// modeOK reports whether the file at rel already has f's mode (for an
// executable, its execute bits; any mode will do for another).
func modeOK(root *os.Root, rel string, f File) bool {
	if !f.Executable {
		return true
	}
	st, err := root.Stat(rel)
	return err == nil && st.Mode().Perm()&0o111 == 0o111
}

// localPath checks that a render's slash-separated path stays inside root:
// it must be local, and no component that exists may be a symbolic link, a
// directory component must be a directory and the file, if it exists, a
// regular file. It returns the path in the OS's form.
func localPath(root *os.Root, p string) (string, error) {
	rel := filepath.FromSlash(p)
	if p == "" || !filepath.IsLocal(rel) || strings.Contains(p, "\\") {
		return "", fmt.Errorf("%q is not a relative path inside the output directory: %w", p, ErrUnsafePath)
	}
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	for i := range parts {
		sub := filepath.Join(parts[:i+1]...)
		st, err := root.Lstat(sub)
		if errors.Is(err, fs.ErrNotExist) {
			return rel, nil // nothing below exists yet: Write creates it
		}
		if err != nil {
			return "", err
		}
		last := i == len(parts)-1
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			return "", fmt.Errorf("%s is a symbolic link; Bridle writes only inside the output directory (remove the link, or choose another --out): %w",
				filepath.Join(root.Name(), sub), ErrUnsafePath)
		case !last && !st.IsDir():
			return "", fmt.Errorf("%s is not a directory", filepath.Join(root.Name(), sub))
		case last && !st.Mode().IsRegular():
			return "", fmt.Errorf("%s is not a regular file", filepath.Join(root.Name(), sub))
		}
	}
	return rel, nil
}

// writeAtomic writes data to a temporary file beside rel and renames it
// into place, so a reader sees the old file or the new one, never a part.
func writeAtomic(root *os.Root, rel string, data []byte, mode fs.FileMode) error {
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".tmp-"+hex.EncodeToString(b[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer root.Remove(tmp) // after a successful rename there is nothing left to remove
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode) // as renameio did: the mode does not depend on the umask
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return root.Rename(tmp, rel)
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
	root, err := os.OpenRoot(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("check %s: %w", dir, err)
	}
	if root != nil {
		defer root.Close()
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		want[filepath.Clean(p)] = true
		got, missing, err := readForCheck(root, p, f)
		if err != nil {
			return nil, err
		}
		if missing != nil {
			out = append(out, *missing)
			continue
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
	if !generated(got) {
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

// Orphans returns the Bridle-generated markdown files under dir that none
// of files is: what an agent removed from the rules used to get.
func Orphans(dir string, files []File) ([]Finding, error) {
	want := map[string]bool{}
	for _, f := range files {
		want[filepath.Clean(filepath.Join(dir, filepath.FromSlash(f.Path)))] = true
	}
	return orphans(dir, want)
}

// Prune removes the orphans Orphans found under dir, through dir (never
// through a link out of it), and returns the paths removed. The files are
// Bridle's renders, which say in their header that they are generated.
func Prune(dir string, orphans []Finding) ([]string, error) {
	owned := make([]Orphan, 0, len(orphans))
	for _, o := range orphans {
		rel, err := filepath.Rel(dir, o.Path)
		if err != nil {
			return nil, fmt.Errorf("prune %s: %w", o.Path, err)
		}
		owned = append(owned, Orphan{Path: filepath.ToSlash(rel), Intact: true})
	}
	return RemoveOrphans(dir, owned)
}

// orphans finds Bridle-generated markdown files under dir that are not in
// want, looking at most four directories deep and skipping hidden and
// vendored directories, and directories of other rules (holding a
// bridle.yaml: their renders are theirs, such as a rules folder's
// rendered/ below a project root).
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
			rel, _ := filepath.Rel(dir, p)
			hidden := strings.HasPrefix(name, ".") && !harnessDirs()[filepath.ToSlash(rel)]
			if p != dir && (hidden || name == "node_modules" || name == "vendor" ||
				strings.Count(filepath.Clean(p), string(filepath.Separator))-base >= 4) {
				return fs.SkipDir
			}
			if p != dir {
				if _, err := os.Lstat(filepath.Join(p, "bridle.yaml")); err == nil {
					return fs.SkipDir
				}
			}
			return nil
		}
		if !(strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".mdc")) || want[filepath.Clean(p)] || !d.Type().IsRegular() {
			return nil
		}
		head := make([]byte, 4096+len(HeaderStart))
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		n, _ := io.ReadFull(f, head)
		f.Close()
		if generated(string(head[:n])) {
			out = append(out, Finding{Path: p, State: Orphaned})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", dir, err)
	}
	return out, nil
}

// harnessDirs are the hidden directories, relative to the output directory
// and slash-separated, that hold a harness's instruction file
// (.cursor/rules, .github, …) and their parents: orphans looks into them.
var harnessDirs = sync.OnceValue(func() map[string]bool {
	dirs := map[string]bool{}
	for _, a := range agents.All() {
		if a.Harness == nil {
			continue
		}
		for d := path.Dir(a.Harness.Instructions); d != "." && d != "/"; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	return dirs
})

// readForCheck reads f's file under root (nil when the directory does not
// exist) for a check, p being its path for messages. A missing file is
// returned as a Missing finding. A linked file or directory is refused, not
// read: its diff would print a file from outside the output directory.
func readForCheck(root *os.Root, p string, f File) ([]byte, *Finding, error) {
	err := fs.ErrNotExist
	var got []byte
	if root != nil {
		var rel string
		if rel, err = localPath(root, f.Path); err != nil {
			return nil, nil, fmt.Errorf("check %s: %w", p, err)
		}
		got, err = root.ReadFile(rel)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Finding{Path: p, Agent: f.Agent, State: Missing, Diff: udiff.Unified(p, p, "", f.Content)}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("check %s: %w", p, err)
	}
	return got, nil, nil
}
