package proposals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/bridle-dev/bridle/actor"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/gofrs/flock"
	"github.com/google/renameio/v2"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/internal/gittree"
	"github.com/bridle-dev/bridle/internal/identity"
	"github.com/bridle-dev/bridle/schema"
)

// Local keeps proposals in a local git repository: a proposal is a branch
// with one commit, its metadata lives under .git/bridle/proposals, and
// approving it makes a merge commit on main. Main moves only through Merge.
type Local struct {
	repo    *git.Repository
	root    string // work tree root
	gitDir  string
	file    string // the rules file, relative to root, slash-separated
	main    string // main branch name
	version string // bridle version, for renders
	now     func() time.Time
	cache   listCache // List's records and verdicts (listcache.go)
}

// OpenLocal opens the repository holding the rules at rulesPath (a
// bridle.yaml or a directory holding one).
func OpenLocal(rulesPath, version string) (*Local, error) {
	dir, file := rulesPath, "bridle.yaml"
	st, err := os.Stat(rulesPath)
	if err != nil {
		return nil, fmt.Errorf("open rules %s: %w (point --rules at the directory holding bridle.yaml)", rulesPath, compiler.ErrNotFound)
	}
	if !st.IsDir() {
		dir, file = filepath.Dir(rulesPath), filepath.Base(rulesPath)
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, fmt.Errorf("open rules repository %s: %w (run bridle init first)", dir, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("open rules repository %s: %w", dir, err)
	}
	root := wt.Filesystem.Root()
	absDir, _ := filepath.Abs(dir)
	absDir, _ = filepath.EvalSymlinks(absDir)
	rootReal, _ := filepath.EvalSymlinks(root)
	rel, err := filepath.Rel(rootReal, filepath.Join(absDir, file))
	if err != nil {
		return nil, err
	}
	gitDir := filepath.Join(root, ".git")
	if fs, ok := repo.Storer.(*filesystem.Storage); ok {
		gitDir = fs.Filesystem().Root()
	}
	l := &Local{repo: repo, root: root, gitDir: gitDir, file: filepath.ToSlash(rel), main: compiler.Branch(dir), version: version, now: time.Now}
	return l, nil
}

// Name implements Backend.
func (l *Local) Name() string { return "local" }

// Layout is how this repository lays out a proposal made on base
// (folderLayout), reading the base commit's files.
func (l *Local) Layout(_ context.Context, base string) Layout {
	return folderLayout(path.Dir(l.file), func(p string) ([]byte, error) {
		c, err := l.repo.CommitObject(plumbing.NewHash(base))
		if err != nil {
			return nil, err
		}
		f, err := c.File(p)
		if errors.Is(err, object.ErrFileNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		s, err := f.Contents()
		return []byte(s), err
	})
}

func (l *Local) mainRef() plumbing.ReferenceName { return plumbing.NewBranchReferenceName(l.main) }

// Main implements Backend.
func (l *Local) Main(context.Context) ([]byte, string, error) {
	ref, err := l.repo.Reference(l.mainRef(), true)
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w (the rules' branch %s has no commit: commit the rules there, as bridle init does, or name the branch that holds them: git config %s NAME)",
			l.main, err, l.main, compiler.BranchKey)
	}
	data, err := l.fileAt(ref.Hash())
	if errors.Is(err, object.ErrFileNotFound) {
		err = fmt.Errorf("%w (%s is not committed on the rules' branch %s: commit it there (git switch %s, git add, git commit), or name the branch that holds it: git config %s NAME)",
			err, l.file, l.main, l.main, compiler.BranchKey)
	}
	return data, ref.Hash().String(), err
}

func (l *Local) fileAt(h plumbing.Hash) ([]byte, error) {
	c, err := l.repo.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	f, err := c.File(l.file)
	if err != nil {
		return nil, fmt.Errorf("read %s at %s: %w", l.file, h.String()[:12], err)
	}
	r, err := f.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, 4<<20))
}

// Commit implements Backend.
func (l *Local) Commit(_ context.Context, sha string) (Commit, error) {
	c, err := l.repo.CommitObject(plumbing.NewHash(sha))
	if err != nil {
		return Commit{}, fmt.Errorf("read commit %s: %w", sha, err)
	}
	out := Commit{SHA: c.Hash.String(), Message: c.Message}
	for _, p := range c.ParentHashes {
		out.Parents = append(out.Parents, p.String())
	}
	if data, err := l.fileAt(c.Hash); err == nil {
		out.Rules = data
	}
	return out, nil
}

// meta is a proposal's record under .git/bridle/proposals.
type meta struct {
	Proposal
	Message string `json:"message"`
}

func (l *Local) dir() string { return filepath.Join(l.gitDir, "bridle", "proposals") }

func (l *Local) lock() (*flock.Flock, error) {
	if err := os.MkdirAll(l.dir(), 0o755); err != nil {
		return nil, err
	}
	fl := flock.New(filepath.Join(l.gitDir, "bridle", "lock"))
	if err := fl.Lock(); err != nil {
		return nil, fmt.Errorf("lock proposals: %w", err)
	}
	return fl, nil
}

func (l *Local) load(n int) (meta, error) {
	b, err := os.ReadFile(filepath.Join(l.dir(), fmt.Sprintf("%d.json", n)))
	if errors.Is(err, os.ErrNotExist) {
		return meta{}, fmt.Errorf("proposal #%d: %w", n, ErrNotFound)
	}
	if err != nil {
		return meta{}, err
	}
	var m meta
	if err := json.Unmarshal(b, &m); err != nil {
		return meta{}, fmt.Errorf("proposal #%d: damaged record: %w", n, err)
	}
	return m, nil
}

func (l *Local) save(m meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return renameio.WriteFile(filepath.Join(l.dir(), fmt.Sprintf("%d.json", m.Number)), b, 0o644)
}

func (l *Local) numbers() ([]int, error) {
	entries, err := os.ReadDir(l.dir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	var ns []int
	for _, e := range entries {
		var n int
		if _, err := fmt.Sscanf(e.Name(), "%d.json", &n); err == nil && strings.HasSuffix(e.Name(), ".json") {
			ns = append(ns, n)
		}
	}
	sort.Ints(ns)
	return ns, err
}

// OnMain reports whether commit is main's head or on its first-parent line.
func (l *Local) OnMain(_ context.Context, commit string) (bool, error) {
	ref, err := l.repo.Reference(l.mainRef(), true)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", l.main, err)
	}
	want := plumbing.NewHash(commit)
	c, err := l.repo.CommitObject(ref.Hash())
	for i := 0; err == nil && i < 100_000; i++ {
		if c.Hash == want {
			return true, nil
		}
		if len(c.ParentHashes) == 0 {
			break
		}
		c, err = l.repo.CommitObject(c.ParentHashes[0])
	}
	return false, nil
}

// Whoami is the approver of a merge made here, and whoever rejects: git's
// committer identity (see package identity), or an error saying how to set
// one.
func (l *Local) Whoami(context.Context) (string, error) {
	p, err := identity.Of(identity.Committer, l.repo)
	return p.Name, err
}

// WhoamiActor is Whoami with git's e-mail: the person, as four eyes
// compares people (actor.SamePerson).
func (l *Local) WhoamiActor(context.Context) (actor.Actor, error) {
	p, err := identity.Of(identity.Committer, l.repo)
	if err != nil {
		return actor.Actor{}, err
	}
	return actor.Git(p.Name, p.Email), nil
}

// signature signs what a person does here in role. With name given (--as,
// or a proposal's recorded author) the e-mail is git's only when git names
// the same person; without it, the person is git's identity for role, and
// there is none when git has none: no name is made up.
func (l *Local) signature(name string, role identity.Role) (*object.Signature, error) {
	p, err := identity.Of(role, l.repo)
	if name == "" {
		if err != nil {
			return nil, err
		}
		return &object.Signature{Name: p.Name, Email: p.Email, When: l.now()}, nil
	}
	sig := &object.Signature{Name: name, When: l.now()}
	if err == nil && p.Name == name {
		sig.Email = p.Email
	}
	return sig, nil
}

// commitFiles writes a commit whose tree is base's with files (by slash
// path relative to the rules file's directory) written into it.
func (l *Local) commitFiles(parents []plumbing.Hash, base plumbing.Hash, files map[string][]byte, msg string, author *object.Signature) (plumbing.Hash, error) {
	st := l.repo.Storer
	c, err := l.repo.CommitObject(base)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	full := make(map[string][]byte, len(files))
	for rel, data := range files {
		full[path.Join(path.Dir(l.file), rel)] = data
	}
	treeHash, err := gittree.Put(st, c.TreeHash, full)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	commit := &object.Commit{Author: *author, Committer: *author, Message: msg, TreeHash: treeHash, ParentHashes: parents}
	obj := st.NewEncodedObject()
	if err := commit.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}

// Create implements Backend. The branch ref is written last: if anything
// fails before, nothing is visible; if the record cannot be saved, the
// branch is removed again.
func (l *Local) Create(_ context.Context, p Prepared) (Proposal, error) {
	fl, err := l.lock()
	if err != nil {
		return Proposal{}, err
	}
	defer fl.Unlock()
	ns, err := l.numbers()
	if err != nil {
		return Proposal{}, err
	}
	n := 1
	if len(ns) > 0 {
		n = ns[len(ns)-1] + 1
	}
	branch := p.Branch
	for i := 2; ; i++ {
		if _, err := l.repo.Reference(plumbing.NewBranchReferenceName(branch), false); err != nil {
			break
		}
		branch = fmt.Sprintf("%s-%d", p.Branch, i)
	}
	base := plumbing.NewHash(p.Base)
	var author *object.Signature
	if s := p.Draft.Origin.Source; s == schema.SourceAgent || s == schema.SourceVendor {
		author = &object.Signature{Name: "bridle (" + string(s) + " " + Slug(p.Draft.Origin.Agent, 40) + ")", Email: "bridle@localhost", When: l.now()}
	} else if author, err = l.signature(p.Draft.Origin.Author, identity.Author); err != nil {
		return Proposal{}, fmt.Errorf("create proposal: %w", err)
	}
	head, err := l.commitFiles([]plumbing.Hash{base}, base, p.Files, p.Message, author)
	if err != nil {
		return Proposal{}, fmt.Errorf("create proposal: commit: %w", err)
	}
	m := meta{Proposal: Proposal{
		Number: n, Title: p.Title, State: Open, Branch: branch, Head: head.String(), Base: p.Base,
		Author: author.Name, CreatedAt: l.now().UTC(), Labels: p.Labels, Body: p.Body, Draft: &p.Draft, Mergeable: true,
	}, Message: p.Message}
	ref := plumbing.NewHashReference(plumbing.NewBranchReferenceName(branch), head)
	if err := l.repo.Storer.SetReference(ref); err != nil {
		return Proposal{}, fmt.Errorf("create proposal: branch %s: %w", branch, err)
	}
	if err := l.save(m); err != nil {
		l.repo.Storer.RemoveReference(ref.Name())
		return Proposal{}, fmt.Errorf("create proposal: record: %w", err)
	}
	return m.Proposal, nil
}

// List implements Backend. Each proposal's mergeability is checked
// against main as it is now; records and verdicts that their files and
// commits pin are reused from earlier listings (listCache), so listing a
// long queue twice reads and checks only what changed in between. The
// listed proposals' drafts are shared with that cache: read them, do not
// modify them.
func (l *Local) List(ctx context.Context, state State) ([]Proposal, error) {
	ns, err := l.numbers()
	if err != nil {
		return nil, err
	}
	mainRules, mainCommit, _ := l.Main(ctx)
	var out []Proposal
	for _, n := range ns {
		m, err := l.record(n)
		if err != nil {
			return nil, err
		}
		if state != All && m.State != state {
			continue
		}
		l.mergeability(&m.Proposal, mainRules, mainCommit)
		out = append(out, m.Proposal)
	}
	return out, nil
}

// mergeability sets whether p merges into main as it is now, and why not.
func (l *Local) mergeability(p *Proposal, mainRules []byte, mainCommit string) {
	if p.State != Open {
		p.Mergeable = false
		return
	}
	p.Mergeable, p.Conflict = true, ""
	if p.Base == mainCommit {
		return
	}
	if v, ok := l.cache.verdict(p.Head, mainCommit); ok {
		p.Mergeable, p.Conflict = v.mergeable, v.conflict
		return
	}
	Check(mainRules, p)
	if p.Mergeable {
		p.Conflict = "main has moved; approving re-applies the change to the new main"
	}
	l.cache.keep(p.Head, mainCommit, verdict{mergeable: p.Mergeable, conflict: p.Conflict})
}

// Get implements Backend.
func (l *Local) Get(ctx context.Context, n int) (Proposal, error) {
	m, err := l.load(n)
	if err != nil {
		return Proposal{}, err
	}
	rules, commit, _ := l.Main(ctx)
	l.mergeability(&m.Proposal, rules, commit)
	return m.Proposal, nil
}

// Update implements Backend: the branch gets a new commit on the current main.
func (l *Local) Update(_ context.Context, n int, p Prepared) (Proposal, error) {
	fl, err := l.lock()
	if err != nil {
		return Proposal{}, err
	}
	defer fl.Unlock()
	return l.update(n, p)
}

func (l *Local) update(n int, p Prepared) (Proposal, error) {
	m, err := l.load(n)
	if err != nil {
		return Proposal{}, err
	}
	if m.State != Open {
		return Proposal{}, fmt.Errorf("update #%d: %w", n, ErrState)
	}
	old, err := l.repo.CommitObject(plumbing.NewHash(m.Head))
	if err != nil {
		return Proposal{}, err
	}
	base := plumbing.NewHash(p.Base)
	author := old.Author
	author.When = l.now()
	head, err := l.commitFiles([]plumbing.Hash{base}, base, p.Files, p.Message, &author)
	if err != nil {
		return Proposal{}, fmt.Errorf("rebase #%d: commit: %w", n, err)
	}
	if err := l.repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewBranchReferenceName(m.Branch), head)); err != nil {
		return Proposal{}, fmt.Errorf("rebase #%d: %w", n, err)
	}
	m.Head, m.Base, m.Body, m.Message, m.Mergeable, m.Conflict = head.String(), p.Base, p.Body, p.Message, true, ""
	return m.Proposal, l.save(m)
}

// Merge implements Backend: a merge commit on main whose tree is the
// proposal's, authored by the approver. A proposal made on an older main is
// first re-applied at the document level; a real conflict stops the merge.
func (l *Local) Merge(ctx context.Context, n int, approver, head string) (Proposal, error) {
	m, unlock, err := l.openLocked("approve", n)
	if err != nil {
		return Proposal{}, err
	}
	defer unlock()
	if head != "" && m.Head != head {
		return Proposal{}, fmt.Errorf("approve #%d: %w: the proposal changed after it was checked; check it again", n, ErrConflict)
	}
	rules, mainCommit, err := l.Main(ctx)
	if err != nil {
		return Proposal{}, err
	}
	if m.Base != mainCommit {
		// Re-apply the change the proposal's commit records (checked
		// against its content), not the metadata file's copy.
		rec, err := Service{Backend: l}.Record(ctx, m.Proposal)
		if err != nil {
			return Proposal{}, fmt.Errorf("approve #%d: main has moved and %w", n, err)
		}
		p, err := PrepareIn(rules, mainCommit, rec.Draft, l.version, l.Layout(ctx, mainCommit))
		if err != nil {
			return Proposal{}, fmt.Errorf("approve #%d: main has moved and the change no longer applies: %w", n, err)
		}
		if _, err := l.update(n, p); err != nil {
			return Proposal{}, err
		}
		if m, err = l.load(n); err != nil {
			return Proposal{}, err
		}
	}
	headCommit, err := l.repo.CommitObject(plumbing.NewHash(m.Head))
	if err != nil {
		return Proposal{}, err
	}
	if err := l.checkoutClean(plumbing.NewHash(mainCommit), headCommit); err != nil {
		return Proposal{}, fmt.Errorf("approve #%d: %w", n, err)
	}
	sig, err := l.signature(approver, identity.Committer)
	if err != nil {
		return Proposal{}, fmt.Errorf("approve #%d: %w", n, err)
	}
	msg := fmt.Sprintf("Merge proposal #%d: %s\n\nBridle-Proposal: %d\nBridle-Approved-By: %s\n", n, m.Title, n, OneLine(sig.Name, 80))
	main := plumbing.NewHash(mainCommit)
	// The proposal was made on main (re-applied above if main had moved), so
	// the merged tree is the proposal's tree.
	mc := &object.Commit{Author: *sig, Committer: *sig, Message: msg, TreeHash: headCommit.TreeHash,
		ParentHashes: []plumbing.Hash{main, headCommit.Hash}}
	obj := l.repo.Storer.NewEncodedObject()
	if err := mc.Encode(obj); err != nil {
		return Proposal{}, err
	}
	merge, err := l.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return Proposal{}, fmt.Errorf("approve #%d: merge commit: %w", n, err)
	}
	newRef := plumbing.NewHashReference(l.mainRef(), merge)
	oldRef := plumbing.NewHashReference(l.mainRef(), main)
	if err := l.repo.Storer.CheckAndSetReference(newRef, oldRef); err != nil {
		return Proposal{}, fmt.Errorf("approve #%d: %s moved during the merge; try again: %w", n, l.main, err)
	}
	l.syncWorktree(main, merge)
	now := l.now().UTC()
	m.State, m.MergedBy, m.MergedAt, m.MergeCommit, m.Mergeable, m.Conflict = Merged, sig.Name, &now, merge.String(), false, ""
	if err := l.deleteBranch(m.Branch, headCommit.Hash); err != nil {
		m.Conflict = fmt.Sprintf("merged; the branch %s is left behind: %v", m.Branch, err)
	}
	return m.Proposal, l.save(m)
}

// deleteBranch removes a merged proposal's branch, as a forge does after a
// merge. Nothing needs it any more: the commit is the merge's second parent,
// and the record keeps the branch's name and head. A branch that moved since
// the merge, or that is checked out, is left alone.
func (l *Local) deleteBranch(branch string, merged plumbing.Hash) error {
	name := plumbing.NewBranchReferenceName(branch)
	ref, err := l.repo.Reference(name, false)
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if ref.Hash() != merged {
		return fmt.Errorf("it moved to %s after the merge", ref.Hash().String()[:12])
	}
	if head, err := l.repo.Storer.Reference(plumbing.HEAD); err == nil && head.Type() == plumbing.SymbolicReference && head.Target() == name {
		return errors.New("it is checked out")
	}
	return l.repo.Storer.RemoveReference(name)
}

// ErrDirty: the checkout of main has changes of its own in files a merge
// would change; merging would leave them behind the new main.
var ErrDirty = errors.New("the checkout of main has uncommitted changes in files the merge changes")

// checkoutClean refuses a merge into a checked-out main whose work tree or
// index holds changes of its own in a file the merge changes (a file already
// as merged — the edit that was proposed — is fine): main would move, the
// checkout would not follow, and committing it later would undo the
// approval. Another branch checked out, or a bare repository, is fine.
func (l *Local) checkoutClean(main plumbing.Hash, merged *object.Commit) error {
	files, err := l.checkoutChanges(main, merged)
	if err != nil || files == nil {
		return err
	}
	idx, err := l.repo.Storer.Index()
	if err != nil {
		return err
	}
	var dirty []string
	for _, f := range files {
		switch {
		case f.state == edited:
			dirty = append(dirty, f.name)
		case f.from != plumbing.ZeroHash:
			if e, err := idx.Entry(f.name); err == nil && e.Hash != f.from && e.Hash != f.to {
				dirty = append(dirty, f.name) // staged changes of its own
			}
		}
	}
	if len(dirty) > 0 {
		slices.Sort(dirty)
		return fmt.Errorf("%w: %s; set them aside with git stash (git stash pop after), then approve again — committing them to main instead would be a change nobody approved",
			ErrDirty, strings.Join(slices.Compact(dirty), ", "))
	}
	return nil
}

// What a file a merge changes looks like in the checkout of main.
const (
	asBefore = iota // as main had it (or absent, as main had it)
	asMerged        // already as the merge makes it (an edit that was proposed)
	edited          // anything else: the user's own change, or an untracked file in the way
)

// checkoutFile is one file a merge changes, and its state in the checkout.
type checkoutFile struct {
	name     string
	from, to plumbing.Hash // blob before and after (zero when absent)
	after    []byte        // the merged content; nil when the merge deletes it
	state    int
}

// checkoutChanges lists the files the merge from main to merged changes,
// each with its state in the work tree; nil when main is not checked out.
func (l *Local) checkoutChanges(main plumbing.Hash, merged *object.Commit) ([]checkoutFile, error) {
	head, err := l.repo.Head()
	if err != nil || head.Name() != l.mainRef() {
		return nil, nil
	}
	oc, err := l.repo.CommitObject(main)
	if err != nil {
		return nil, err
	}
	ot, err1 := oc.Tree()
	mt, err2 := merged.Tree()
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	changes, err := ot.Diff(mt)
	if err != nil {
		return nil, err
	}
	out := []checkoutFile{}
	for _, ch := range changes {
		f := checkoutFile{name: ch.To.Name, from: ch.From.TreeEntry.Hash, to: ch.To.TreeEntry.Hash}
		if f.name == "" {
			f.name = ch.From.Name
		}
		var before string
		if ch.From.Name != "" {
			c, err := oc.File(ch.From.Name)
			if err == nil {
				before, err = c.Contents()
			}
			if err != nil {
				return nil, err
			}
		}
		if ch.To.Name != "" {
			c, err := merged.File(ch.To.Name)
			var after string
			if err == nil {
				after, err = c.Contents()
			}
			if err != nil {
				return nil, err
			}
			f.after = []byte(after)
		}
		onDisk, err := os.ReadFile(filepath.Join(l.root, filepath.FromSlash(f.name)))
		switch {
		case err == nil && f.after != nil && string(onDisk) == string(f.after):
			f.state = asMerged
		case err == nil && ch.From.Name != "" && string(onDisk) == before:
			f.state = asBefore
		case errors.Is(err, fs.ErrNotExist) && ch.From.Name == "":
			f.state = asBefore // a new file, not there yet
		default:
			f.state = edited // changed, deleted or in the way
		}
		out = append(out, f)
	}
	return out, nil
}

// syncWorktree brings a checked-out main up to date after a merge: every
// file the merge changed is written and staged (a file already as merged,
// such as the edit a maintainer proposed, is only staged), unless the user
// has edited one otherwise, in which case the work tree is left alone
// (checkoutClean refused that before the merge; this covers a race).
func (l *Local) syncWorktree(old, merged plumbing.Hash) {
	mc, err := l.repo.CommitObject(merged)
	if err != nil {
		return
	}
	files, err := l.checkoutChanges(old, mc)
	if err != nil || slices.ContainsFunc(files, func(f checkoutFile) bool { return f.state == edited && f.after != nil }) {
		return
	}
	wt, err := l.repo.Worktree()
	if err != nil {
		return
	}
	for _, f := range files {
		if f.after == nil {
			continue // a deletion: the work tree keeps the file
		}
		if f.state == asBefore {
			p := filepath.Join(l.root, filepath.FromSlash(f.name))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if renameio.WriteFile(p, f.after, 0o644) != nil {
				continue
			}
		}
		wt.Add(f.name)
	}
}

// openLocked takes the proposals lock and loads proposal n, which must be
// open; the caller releases the lock with unlock.
func (l *Local) openLocked(op string, n int) (meta, func(), error) {
	fl, err := l.lock()
	if err != nil {
		return meta{}, nil, err
	}
	m, err := l.load(n)
	if err == nil && m.State != Open {
		err = fmt.Errorf("%s #%d: %w (it is %s)", op, n, ErrState, m.State)
	}
	if err != nil {
		fl.Unlock()
		return meta{}, nil, err
	}
	return m, func() { fl.Unlock() }, nil
}

// Close implements Backend.
func (l *Local) Close(_ context.Context, n int, by, reason string) (Proposal, error) {
	m, unlock, err := l.openLocked("reject", n)
	if err != nil {
		return Proposal{}, err
	}
	defer unlock()
	sig, err := l.signature(by, identity.Committer)
	if err != nil {
		return Proposal{}, fmt.Errorf("reject #%d: %w", n, err)
	}
	m.State, m.ClosedBy, m.Mergeable = Closed, sig.Name, false
	if reason = strings.TrimSpace(reason); reason != "" {
		m.Conflict = "rejected: " + OneLine(reason, 500)
	}
	return m.Proposal, l.save(m)
}
