package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/renameio/v2"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/mirror"
)

// Status says how fresh the snapshot being served is.
type Status struct {
	Stale       bool      `json:"stale"`
	Reason      string    `json:"reason,omitempty"` // why the rules source could not be used
	Commit      string    `json:"commit,omitempty"` // the commit the served snapshot was compiled from
	ContentHash string    `json:"content_hash,omitempty"`
	CompiledAt  time.Time `json:"compiled_at"`        // when the served snapshot was compiled
	Since       time.Time `json:"since,omitzero"`     // when the source first failed
	Worktree    bool      `json:"worktree,omitempty"` // authoring mode: the work tree is served
}

// Notice is a one-paragraph warning for a stale snapshot or the authoring
// mode, "" when neither applies.
func (s Status) Notice() string {
	authoring := ""
	if s.Worktree {
		authoring = "> **Authoring mode.** Bridle is serving the rules' work tree, not approved main (`bridle mcp --worktree`). " +
			"Edits nobody approved are marked NOT APPROVED and grant no permission main does not."
	}
	if !s.Stale {
		return authoring
	}
	if authoring != "" {
		authoring += "\n\n"
	}
	commit := s.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if commit == "" {
		commit = "an uncommitted work tree"
	} else {
		commit = "commit " + commit
	}
	return authoring + fmt.Sprintf("> **Stale rules.** Bridle cannot use the rules source (%s) since %s; it is serving the cached snapshot of %s compiled at %s. Tell the human.",
		s.Reason, s.Since.UTC().Format(time.RFC3339), commit, s.CompiledAt.UTC().Format(time.RFC3339))
}

// source loads the snapshot, re-checks the rules at most every interval,
// caches every good snapshot per commit, and falls back to the cache when
// the rules cannot be read or compiled.
type source struct {
	opts     compiler.Options
	file     string // a compiled snapshot to serve instead of compiling, if set
	cacheDir string // "" disables the cache
	interval time.Duration
	now      func() time.Time
	log      *slog.Logger

	mirror *mirror.Mirror // a Gitea rules repository, when set

	refreshing bool // a background refresh (Gitea) is running
	mu         sync.Mutex
	fromCache  bool // the last compile was served from the compile cache
	snap       *compiler.Snapshot
	status     Status
	checked    time.Time
	stamp      stamp
}

// stamp identifies a rules file's state, to skip recompiling an unchanged file.
type stamp struct {
	size  int64
	mtime time.Time
}

// cached is the on-disk form of a cached snapshot.
type cached struct {
	CompiledAt time.Time          `json:"compiled_at"`
	Snapshot   *compiler.Snapshot `json:"snapshot"`
}

// get returns the snapshot to serve and its status. It errors only when
// there is nothing at all to serve.
func (s *source) get() (*compiler.Snapshot, Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.snap != nil && now.Sub(s.checked) < s.interval {
		return s.snap, s.status, nil
	}
	s.checked = now
	if s.file != "" {
		return s.loadFile()
	}
	if s.mirror != nil && s.snap != nil {
		// Asking Gitea takes a round trip: never on the caller's time.
		if !s.refreshing {
			s.refreshing = true
			go s.refreshMirror()
		}
		return s.snap, s.status, nil
	}
	if s.mirror != nil {
		snap, hit, err := s.syncAndCompile(s.snap)
		s.fromCache = hit
		return s.settle(snap, stamp{}, err, now)
	}
	if s.opts.Ref != "" && s.snap != nil && !s.status.Stale && (s.snap.Approval == nil || !s.snap.Approval.Incomplete) {
		// The commit decides the snapshot: while the ref still points at
		// the one served, there is nothing to read or decode.
		if head, err := compiler.Head(s.opts); err == nil && head == s.snap.Source.Commit {
			return s.snap, s.status, nil
		}
	}
	st, statErr := s.rulesStamp()
	if s.snap != nil && statErr == nil && st == s.stamp && s.opts.Ref == "" && !s.status.Stale {
		return s.snap, s.status, nil
	}
	snap, hit, err := s.compile(s.opts)
	s.fromCache = hit
	return s.settle(snap, st, err, now)
}

// syncAndCompile brings the Gitea mirror up to date and compiles main; while
// main is still at cur's commit it returns cur. It reads no field s.mu
// guards, so the background refresh calls it without the lock.
func (s *source) syncAndCompile(cur *compiler.Snapshot) (snap *compiler.Snapshot, hit bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	head, err := s.mirror.Sync(ctx)
	if err != nil {
		return nil, false, err
	}
	if cur != nil && head == cur.Source.Commit && (cur.Approval == nil || !cur.Approval.Incomplete) {
		return cur, false, nil
	}
	opts := s.opts
	opts.PRLookup = s.mirror.PRLookup(ctx)
	return s.compile(opts)
}

// refreshMirror runs in the background; the snapshot is swapped when done.
func (s *source) refreshMirror() {
	s.mu.Lock()
	cur := s.snap
	s.mu.Unlock()
	snap, _, err := s.syncAndCompile(cur)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refreshing, s.fromCache = false, false
	s.settle(snap, stamp{}, err, s.now())
}

// settle records the outcome of a load: a new snapshot, or a failure that
// keeps the last good one and marks it stale. Callers hold s.mu.
func (s *source) settle(snap *compiler.Snapshot, st stamp, err error, now time.Time) (*compiler.Snapshot, Status, error) {
	if err == nil {
		if snap == s.snap && !s.status.Stale {
			return s.snap, s.status, nil
		}
		err = s.forwardOnly(snap)
	}
	if err == nil {
		s.snap, s.stamp = snap, st
		s.status = Status{Commit: snap.Source.Commit, ContentHash: snap.ContentHash, CompiledAt: now, Worktree: s.worktree()}
		if !s.fromCache {
			s.store(snap, now)
		}
		return s.snap, s.status, nil
	}
	s.log.Warn("rules source unusable; serving the last good snapshot", "err", err)
	if s.snap == nil {
		c, cerr := s.loadCache()
		if cerr != nil {
			if errors.Is(cerr, fs.ErrNotExist) {
				return nil, Status{}, fmt.Errorf("load rules: %w (and no last good snapshot to serve)", err)
			}
			return nil, Status{}, fmt.Errorf("load rules: %w (and no cached snapshot: %v)", err, cerr)
		}
		s.snap = c.Snapshot
		s.status = Status{Commit: c.Snapshot.Source.Commit, ContentHash: c.Snapshot.ContentHash, CompiledAt: c.CompiledAt, Worktree: s.worktree()}
	}
	if !s.status.Stale {
		s.status.Since = now
	}
	s.status.Stale, s.status.Reason = true, err.Error()
	return s.snap, s.status, nil
}

// forwardOnly refuses a local main that moved anywhere but forward from
// the commit served before (in this process, or the cached snapshot from an
// earlier one): resetting main to an older approved commit, or to an
// unrelated history with its own "baseline", is not a change any approval
// produced. Gitea's protected main cannot move so; a work tree has no
// commit to follow.
func (s *source) forwardOnly(snap *compiler.Snapshot) error {
	if s.mirror != nil || s.file != "" || s.opts.Ref == "" || snap.Source.Commit == "" {
		return nil
	}
	prev := ""
	if s.snap != nil {
		prev = s.snap.Source.Commit
	} else if c, err := s.loadCache(); err == nil {
		prev = c.Snapshot.Source.Commit
	}
	if prev == "" || prev == snap.Source.Commit {
		return nil
	}
	ok, err := compiler.Descends(s.opts.Rules, prev, snap.Source.Commit)
	if err != nil || ok {
		return nil // a history that cannot be read is the compiler's to judge
	}
	return fmt.Errorf("%w: %s moved from %s to %s, which does not descend from it (a reset or a rewritten history, "+
		"not an approved change); if a maintainer did this on purpose, remove %s", ErrMovedBack, s.opts.Ref, short(prev), short(snap.Source.Commit), s.cacheKeyDir())
}

// ErrMovedBack: the served ref moved to a commit that does not descend from
// the one served before.
var ErrMovedBack = errors.New("the rules' history moved backwards")

func short(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// worktree reports the authoring mode: the work tree is compiled.
func (s *source) worktree() bool { return s.file == "" && s.mirror == nil && s.opts.Ref == "" }

func (s *source) rulesStamp() (stamp, error) {
	p := s.opts.Rules
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		p = filepath.Join(p, compiler.FileName)
	}
	st, err := os.Stat(p)
	if err != nil {
		return stamp{}, err
	}
	return stamp{st.Size(), st.ModTime()}, nil
}

// compile reads the rules and compiles them, or reuses the snapshot cached
// for exactly this input: starting a sidecar on unchanged rules then skips
// validation altogether.
func (s *source) compile(opts compiler.Options) (snap *compiler.Snapshot, hit bool, err error) {
	// Bad rules must never take a sidecar down: a compiler bug they
	// trigger is one more reason to keep serving the last good snapshot.
	defer func() {
		if r := recover(); r != nil {
			snap, hit, err = nil, false, fmt.Errorf("the compiler failed on these rules (%v); please report it", r)
		}
	}()
	snap, diags, hit, err := compiler.CompileCached(opts, s.compiled())
	if (errors.Is(err, compiler.ErrNotRepo) || errors.Is(err, compiler.ErrBadRef)) && opts.Ref != "" {
		return nil, false, fmt.Errorf("%w; the sidecar serves committed rules only: commit them "+
			"on %s (git add bridle.yaml && git commit), or author with --worktree (which grants no permission main does not)", err, opts.Ref)
	}
	if err != nil {
		return nil, false, err
	}
	if snap != nil {
		return snap, hit, nil
	}
	if len(diags) > 0 {
		switch more := len(diags) - 1; more {
		case 0:
			return nil, false, fmt.Errorf("rules are invalid: %s", diags[0].String())
		case 1:
			return nil, false, fmt.Errorf("rules are invalid: %s (and 1 more problem)", diags[0].String())
		default:
			return nil, false, fmt.Errorf("rules are invalid: %s (and %d more problems)", diags[0].String(), more)
		}
	}
	return nil, false, errors.New("rules are invalid")
}

// compiled is the input-keyed compile cache, beside the snapshot cache.
func (s *source) compiled() compiler.Cache {
	if s.cacheDir == "" {
		return compiler.Cache{}
	}
	return compiler.Cache{Dir: filepath.Join(s.cacheDir, "compiled")}
}

func (s *source) loadFile() (*compiler.Snapshot, Status, error) {
	st, err := os.Stat(s.file)
	if err == nil && s.snap != nil && st.ModTime().Equal(s.stamp.mtime) && st.Size() == s.stamp.size {
		return s.snap, s.status, nil
	}
	var snap compiler.Snapshot
	if err == nil {
		var b []byte
		if b, err = os.ReadFile(s.file); err == nil {
			err = json.Unmarshal(b, &snap)
		}
		if err == nil && (snap.ContentHash == "" || len(snap.Renders) == 0 && len(snap.Document.AgentProfiles) > 0) {
			err = errors.New("not a bridle snapshot")
		}
	}
	if err != nil {
		if s.snap == nil {
			return nil, Status{}, fmt.Errorf("load snapshot %s: %w", s.file, err)
		}
		if !s.status.Stale {
			s.status.Since = s.now()
		}
		s.status.Stale, s.status.Reason = true, err.Error()
		return s.snap, s.status, nil
	}
	s.snap, s.stamp = &snap, stamp{st.Size(), st.ModTime()}
	s.status = Status{Commit: snap.Source.Commit, ContentHash: snap.ContentHash, CompiledAt: st.ModTime()}
	return s.snap, s.status, nil
}

// cacheKeyDir is the cache directory of this source (path and ref).
func (s *source) cacheKeyDir() string {
	abs, err := filepath.Abs(s.opts.Rules)
	if err != nil {
		abs = s.opts.Rules
	}
	sum := sha256.Sum256([]byte(abs + "\x00" + s.opts.Ref))
	return filepath.Join(s.cacheDir, hex.EncodeToString(sum[:8]))
}

// store caches snap under its commit (or content hash) and as latest.
func (s *source) store(snap *compiler.Snapshot, at time.Time) {
	if s.cacheDir == "" {
		return
	}
	dir := s.cacheKeyDir()
	name := snap.Source.Commit
	if name == "" || snap.Source.Dirty {
		name = snap.ContentHash[len("sha256:"):]
	}
	b, err := json.Marshal(cached{CompiledAt: at.UTC(), Snapshot: snap})
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	if err == nil {
		err = renameio.WriteFile(filepath.Join(dir, name+".json"), b, 0o600)
	}
	if err == nil {
		err = renameio.WriteFile(filepath.Join(dir, "latest.json"), b, 0o600)
	}

	if err != nil {
		s.log.Warn("could not cache the snapshot", "err", err)
	}
}

func (s *source) loadCache() (cached, error) {
	if s.cacheDir == "" {
		return cached{}, errors.New("cache disabled")
	}
	b, err := os.ReadFile(filepath.Join(s.cacheKeyDir(), "latest.json"))
	if err != nil {
		return cached{}, err
	}
	var c cached
	if err := json.Unmarshal(b, &c); err != nil || c.Snapshot == nil {
		return cached{}, fmt.Errorf("cached snapshot is damaged: %v", err)
	}
	return c, nil
}

// cacheDirOf is the snapshot cache opts ask for: DefaultCacheDir when
// empty, none for "-".
func cacheDirOf(opts Options) string {
	switch opts.CacheDir {
	case "":
		return DefaultCacheDir()
	case "-":
		return ""
	}
	return opts.CacheDir
}

// Load loads the rules once, exactly as a local sidecar with opts serves
// them: the committed ref (main by default), reviewed for approval, never
// moving backwards from what was served before, the last good snapshot
// (marked stale) when the rules cannot be used. bridle hook claude uses it
// so that the hook enforces what the sidecar serves.
func Load(opts Options) (*compiler.Snapshot, Status, error) {
	if opts.Ref == "" {
		opts.Ref = DefaultRef
	}
	src := &source{
		opts:     compiler.Options{Rules: opts.Rules, Ref: opts.Ref, BridleVersion: opts.Version},
		cacheDir: cacheDirOf(opts),
		interval: time.Second,
		now:      time.Now,
		log:      slog.New(slog.DiscardHandler),
	}
	return src.get()
}

// DefaultCacheDir is where snapshots are cached: $BRIDLE_CACHE_DIR, else the
// user cache directory's bridle/snapshots.
func DefaultCacheDir() string {
	if d := os.Getenv("BRIDLE_CACHE_DIR"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "bridle", "snapshots")
}
