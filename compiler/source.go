package compiler

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/bridle-dev/bridle/schema"
)

// FileName is the rules document's name inside a rules directory or repository.
const FileName = "bridle.yaml"

// Errors a source can fail with, for errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrBadRef   = errors.New("unknown git ref")
	ErrNotRepo  = errors.New("not a git repository")
)

// Read reads the rules document named by opts without validating it. A path
// that holds no rules document and an oversized file are reported as
// diagnostics, like any other problem with the rules; a ref or repository
// that cannot be read is an error.
func Read(opts Options) (Input, schema.Diagnostics, error) {
	if opts.Rules == "" {
		opts.Rules = "."
	}
	var in Input
	var diags schema.Diagnostics
	var err error
	if opts.Ref != "" {
		in, diags, err = readGit(opts.Rules, opts.Ref, opts.File)
	} else {
		in, diags, err = readFile(opts.Rules)
	}
	if err != nil || diags.HasErrors() {
		return in, diags, err
	}
	in.history = !opts.NoHistory
	return in, diags, nil
}

// resolveHistory reviews the repository's history for the input, once,
// unless the caller asked for none. It is deferred until a compile needs it:
// the compile cache is keyed by the commit, which determines the review.
// A work tree that differs from its commit has the difference marked as
// unapproved. A history that cannot be read leaves nothing approved.
func (in *Input) resolveHistory(opts Options) {
	if !in.history || in.review != nil {
		return
	}
	in.history = false
	if in.Source.Commit == "" {
		if opts.Strict {
			in.review = &review{items: map[string]*item{}, complete: true}
		}
		return
	}
	repo, root, err := openRepo(filepath.Dir(absPath(in.pathOnDisk(opts.Rules))))
	if err != nil {
		in.review = &review{items: map[string]*item{}}
		return
	}
	file := in.Source.Path
	if in.Source.Kind == "file" {
		if rel, err := filepath.Rel(root, absPath(in.Source.Path)); err == nil {
			file = filepath.ToSlash(rel)
		}
	}
	r, err := reviewHistory(repo, plumbing.NewHash(in.Source.Commit), file, opts.PRLookup, opts.Bot)
	if err != nil {
		r = &review{items: map[string]*item{}}
	}
	if in.Source.Kind == "file" && in.Source.Dirty {
		if f, _ := schema.Parse(in.Name, in.Data); f != nil {
			r.worktree(&f.Doc)
		}
	}
	in.review = r
}

// pathOnDisk is a path inside the repository the input came from.
func (in Input) pathOnDisk(arg string) string {
	if in.Source.Kind == "file" {
		return in.Source.Path
	}
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		return filepath.Join(arg, FileName)
	}
	return arg
}

func missing(name, msg, fix string) schema.Diagnostics {
	return schema.Diagnostics{{File: name, Line: 1, Col: 1, Level: schema.Error, Message: msg, Fix: fix}}
}

// rulesPath resolves a file or directory argument to the rules file. It
// refuses anything but a regular file (a symbolic link to one is fine)
// before opening it: opening a named pipe waits for a writer, and a device
// or socket is no rules document.
func rulesPath(p string) (string, schema.Diagnostics, error) {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("read rules %s: %w", p, ErrNotFound)
	}
	if err != nil {
		return "", nil, fmt.Errorf("read rules: %w", err)
	}
	if !st.IsDir() {
		return p, notRegular(p, st), nil
	}
	f := filepath.Join(p, FileName)
	st, err = os.Stat(f)
	if errors.Is(err, fs.ErrNotExist) {
		return "", missing(f, "no "+FileName+" in "+p, "point --rules at a rules directory, or create one with `bridle init "+p+"`"), nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("read rules: %w", err)
	}
	return f, notRegular(f, st), nil
}

// notRegular is a diagnostic for a rules path that is not a regular file.
func notRegular(p string, st fs.FileInfo) schema.Diagnostics {
	if st.Mode().IsRegular() {
		return nil
	}
	what := "not a regular file"
	switch m := st.Mode(); {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		what = "a device"
	}
	return missing(p, p+" is "+what+", not a regular file", "point --rules at a bridle.yaml file, or at the directory that holds one")
}

func readFile(arg string) (Input, schema.Diagnostics, error) {
	p, diags, err := rulesPath(arg)
	if err != nil || diags != nil {
		return Input{}, diags, err
	}
	data, diags, err := readLimited(p)
	if err != nil || diags != nil {
		return Input{}, diags, err
	}
	src := Source{Kind: "file", Path: p}
	// Record the enclosing repository's HEAD, and whether this file differs
	// from it, so the rendered header can name the commit.
	if repo, root, err := openRepo(filepath.Dir(p)); err == nil {
		if head, err := repo.Head(); err == nil {
			src.Commit = head.Hash().String()
			rel, _ := filepath.Rel(root, absPath(p))
			blob, err := fileAt(repo, head.Hash(), filepath.ToSlash(rel))
			src.Dirty = err != nil || blob.Hash != plumbing.ComputeHash(plumbing.BlobObject, data)
		}
	}
	return Input{Name: p, Data: data, Source: src}, nil, nil
}

func readLimited(p string) ([]byte, schema.Diagnostics, error) {
	// O_NONBLOCK: should p have become a named pipe since rulesPath looked,
	// opening it does not wait for a writer; the check after opening,
	// on the file actually opened, then refuses it.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("read rules: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("read rules %s: %w", p, err)
	}
	if ds := notRegular(p, st); ds != nil {
		return nil, ds, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, schema.MaxSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read rules %s: %w", p, err)
	}
	if len(data) > schema.MaxSize {
		return nil, missing(p, fmt.Sprintf("file is larger than the %d-byte limit", schema.MaxSize),
			"split prose into shorter statements or move long text out of the rules document"), nil
	}
	return data, nil, nil
}

func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	return a
}

// openRepo opens the git repository enclosing dir and returns its work tree root.
func openRepo(dir string) (*git.Repository, string, error) {
	repo, err := git.PlainOpen(dir) // a bare mirror, or a work tree's root
	if err != nil {
		repo, err = git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	}
	if err != nil {
		return nil, "", fmt.Errorf("open %s: %w", dir, ErrNotRepo)
	}
	wt, err := repo.Worktree()
	if errors.Is(err, git.ErrIsBareRepository) {
		return repo, absPath(dir), nil // a mirror: paths are relative to it
	}
	if err != nil {
		return nil, "", fmt.Errorf("open %s: %w", dir, ErrNotRepo)
	}
	return repo, absPath(wt.Filesystem.Root()), nil
}

func fileAt(repo *git.Repository, commit plumbing.Hash, rel string) (*object.File, error) {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return nil, err
	}
	t, err := c.Tree()
	if err != nil {
		return nil, err
	}
	return t.File(rel)
}

// Head is the commit opts.Ref resolves to in the repository holding
// opts.Rules, resolved as Read resolves it; a cheap check that the rules
// at the ref are still those of a snapshot's Source.Commit.
func Head(opts Options) (string, error) {
	dir := opts.Rules
	if dir == "" {
		dir = "."
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	repo, _, err := openRepo(dir)
	if err != nil {
		return "", err
	}
	h, err := resolveRef(repo, opts.Ref)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// resolveRef resolves ref, a branch name first: "main" is refs/heads/main,
// and a tag or other ref of the same name makes it ambiguous (an agent
// could otherwise shadow the branch the sidecar serves with a tag).
func resolveRef(repo *git.Repository, ref string) (*plumbing.Hash, error) {
	if plumbing.IsHash(ref) || strings.HasPrefix(ref, "refs/") || strings.ContainsAny(ref, "~^@:") {
		h, err := repo.ResolveRevision(plumbing.Revision(ref))
		if err != nil {
			return nil, fmt.Errorf("%w %q", ErrBadRef, ref)
		}
		return h, nil
	}
	branch, err := repo.Reference(plumbing.NewBranchReferenceName(ref), true)
	var others []string
	for _, name := range []plumbing.ReferenceName{plumbing.ReferenceName("refs/" + ref), plumbing.NewTagReferenceName(ref),
		plumbing.NewRemoteReferenceName(ref, "HEAD"), plumbing.ReferenceName(ref)} {
		if _, err := repo.Reference(name, false); err == nil {
			others = append(others, name.String())
		}
	}
	switch {
	case err == nil && len(others) > 0:
		return nil, fmt.Errorf("%w %q: refs/heads/%s and %s share the name; remove the others (git tag -d / git update-ref -d)",
			ErrBadRef, ref, ref, strings.Join(others, ", "))
	case err == nil:
		h := branch.Hash()
		return &h, nil
	case len(others) > 0:
		return nil, fmt.Errorf("%w %q: there is no branch %s, only %s; a tag or other ref does not stand in for the branch",
			ErrBadRef, ref, ref, strings.Join(others, ", "))
	}
	h, rerr := repo.ResolveRevision(plumbing.Revision(ref))
	if rerr != nil {
		return nil, fmt.Errorf("%w %q (%s)", ErrBadRef, ref, refHint(repo))
	}
	return h, nil
}

func readGit(arg, ref, file string) (Input, schema.Diagnostics, error) {
	dir := arg
	rel := ""
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		dir = filepath.Dir(arg)
		rel = filepath.Base(arg)
	} else if err != nil {
		return Input{}, nil, fmt.Errorf("read rules %s: %w", arg, ErrNotFound)
	}
	repo, root, err := openRepo(dir)
	if err != nil {
		return Input{}, nil, fmt.Errorf("read rules at %s: %w", ref, err)
	}
	sub, err := filepath.Rel(root, absPath(dir))
	if err != nil {
		return Input{}, nil, fmt.Errorf("read rules at %s: %w", ref, err)
	}
	if rel == "" {
		rel = FileName
	}
	inRepo := filepath.ToSlash(filepath.Join(sub, rel))
	if file != "" {
		if !fs.ValidPath(file) || file == "." {
			return Input{}, nil, fmt.Errorf("read rules: file %q: not a path inside the repository: %w", file, ErrNotFound)
		}
		inRepo = file
	}
	h, err := resolveRef(repo, ref)
	if err != nil {
		return Input{}, nil, fmt.Errorf("read rules at %s: %w (in %s)", ref, err, root)
	}
	name := inRepo + "@" + ref
	f, err := fileAt(repo, *h, inRepo)
	if errors.Is(err, object.ErrFileNotFound) {
		return Input{}, missing(name, fmt.Sprintf("no %s at %s in commit %s", inRepo, ref, h.String()[:12]),
			"commit a "+FileName+" on that ref, or point --rules at the directory that holds it"), nil
	}
	if err != nil {
		return Input{}, nil, fmt.Errorf("read rules at %s: %w", ref, err)
	}
	if f.Size > schema.MaxSize {
		return Input{}, missing(name, fmt.Sprintf("file is larger than the %d-byte limit", schema.MaxSize), ""), nil
	}
	r, err := f.Reader()
	if err != nil {
		return Input{}, nil, fmt.Errorf("read rules at %s: %w", ref, err)
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, schema.MaxSize+1))
	if err != nil {
		return Input{}, nil, fmt.Errorf("read rules at %s: %w", ref, err)
	}
	return Input{Name: name, Data: data, Source: Source{Kind: "git", Path: inRepo, Repo: root, Ref: ref, Commit: h.String()}}, nil, nil
}
