// Package live is where the rules being served live: a local repository at a
// ref (main by default), its work tree (authoring), a compiled snapshot
// file, or main of a Gitea repository through a local mirror. Opened once,
// it keeps the snapshot current — re-checked at most every Refresh, never on
// a caller's time for Gitea — caches every good snapshot in one directory,
// and when the rules cannot be used keeps serving the last good snapshot,
// marked stale, saying why and since when. The sidecar, the hook and the CLI
// share it; Subscribe tells a long-running consumer when it changes.
//
// Promises: Current errs only when there is nothing at all to serve; a
// local ref never moves backwards (ErrMovedBack); a compiler panic on bad
// rules is a stale snapshot, not a crash; one cache root ($BRIDLE_CACHE_DIR,
// "off" for none) holds the snapshots, the compile cache and the mirrors.
package live

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

// Options say where the rules live and how to keep them.
type Options struct {
	Rules string // rules path, as for bridle compile
	// Ref is the git ref served; when empty (unless Worktree), the rules'
	// branch (compiler.Branch): committed rules, never the work tree, so
	// that an edit nobody approved is never served as the rules.
	Ref string
	// Worktree serves the work tree's rules instead of a committed ref: an
	// authoring mode, loudly labelled, that never grants a permission the
	// committed rules do not (compiler.Options.Strict).
	Worktree bool
	Snapshot string // serve this compiled snapshot instead of compiling
	// Gitea, when set, makes main of this Gitea repository the rules
	// (through a local mirror); Rules and Ref are then ignored.
	Gitea   *mirror.Options
	Version string // bridle version, for the compile cache and renders
	// CacheDir is the cache root: CacheRoot() when empty, "-" for none.
	CacheDir string
	Refresh  time.Duration // how often to re-check the rules; default 2s
	Log      *slog.Logger  // warnings; discarded when nil
	Now      func() time.Time
}

// Open opens the rules o names; the rules are read on the first Current.
// For Gitea it builds the client (and, with no cache, a temporary directory
// for the mirror); options it cannot use are an error and no source, never
// a fall-back to other rules.
func Open(o Options) (*Rules, error) {
	if o.Refresh <= 0 {
		o.Refresh = 2 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Worktree {
		o.Ref = ""
	} else if o.Ref == "" && o.Gitea == nil && o.Snapshot == "" {
		o.Ref = compiler.Branch(o.Rules)
	}
	root := o.CacheDir
	switch root {
	case "":
		root = CacheRoot()
	case "-":
		root = ""
	}
	s := &Rules{
		opts:     compiler.Options{Rules: o.Rules, Ref: o.Ref, BridleVersion: o.Version, Strict: o.Worktree},
		file:     o.Snapshot,
		root:     root,
		interval: o.Refresh,
		now:      o.Now,
		log:      o.Log,
	}
	if root != "" {
		s.cacheDir = filepath.Join(root, "snapshots")
	}
	if o.Gitea != nil {
		dir, err := MirrorRoot(root)
		if err != nil {
			return nil, fmt.Errorf("gitea source: %w", err)
		}
		m, err := mirror.New(*o.Gitea, dir)
		if err != nil {
			return nil, fmt.Errorf("gitea source: %w", err)
		}
		s.mirror = m
		s.opts.Rules, s.opts.Ref, s.opts.File = m.Dir(), m.Main(), m.Path()
	}
	return s, nil
}

// Current returns the snapshot to serve and its status, re-checking the
// rules when the last check is older than Refresh. It errors only when
// there is nothing at all to serve.
func (s *Rules) Current() (*compiler.Snapshot, Status, error) {
	snap, st, err := s.get()
	s.notify()
	return snap, st, err
}

// Invalidate makes the next Current check the rules again whatever
// Refresh says: the caller has just changed them (an approval merged), and
// what agents are served next must say so. On Gitea the next Current
// starts the mirror's refresh and serves the previous snapshot until it
// is done, as any refresh does.
func (s *Rules) Invalidate() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checked = time.Time{}
}

// Served returns the snapshot served last and its status, without checking
// the rules again (nil before the first Current). A subscriber may call it.
func (s *Rules) Served() (*compiler.Snapshot, Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snap, s.status
}

// Mirror is the Gitea mirror the rules come from, nil for a local source.
func (s *Rules) Mirror() *mirror.Mirror { return s.mirror }

// CacheRoot is the cache root this source uses ("" for none).
func (s *Rules) CacheRoot() string { return s.root }

// Remote reports whether the rules come from Gitea (reading them takes a
// round trip).
func (s *Rules) Remote() bool { return s.mirror != nil }

// Subscribe calls f with the new status every time the served snapshot
// changes (a new commit, or turning stale or fresh again), after the change,
// from the goroutine that saw it; cancel stops the calls. f must not call
// back into the source synchronously.
func (s *Rules) Subscribe(f func(Status)) (cancel func()) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	s.nextSub++
	id := s.nextSub
	if s.subs == nil {
		s.subs = map[int]func(Status){}
	}
	s.subs[id] = f
	return func() {
		s.subMu.Lock()
		defer s.subMu.Unlock()
		delete(s.subs, id)
	}
}

// notify tells the subscribers about a change settle recorded. notifyMu
// is held from reading the change through the calls, so that two changes
// close together reach every subscriber in the order they happened.
func (s *Rules) notify() {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	s.mu.Lock()
	changed, st := s.changed, s.status
	s.changed = false
	s.mu.Unlock()
	if !changed {
		return
	}
	s.subMu.Lock()
	subs := make([]func(Status), 0, len(s.subs))
	for _, f := range s.subs {
		subs = append(subs, f)
	}
	s.subMu.Unlock()
	for _, f := range subs {
		f(st)
	}
}

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

// Rules is an open rules source: it loads the snapshot, re-checks the rules
// at most every interval, caches every good snapshot per commit, and falls
// back to the cache when the rules cannot be read or compiled.
type Rules struct {
	opts     compiler.Options
	file     string // a compiled snapshot to serve instead of compiling, if set
	root     string // the cache root; "" disables every cache
	cacheDir string // the snapshot cache (root/snapshots); "" disables it
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
	changed    bool // settle changed what is served; notify tells the subscribers

	notifyMu sync.Mutex // orders notifications
	subMu    sync.Mutex
	subs     map[int]func(Status)
	nextSub  int
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
func (s *Rules) get() (*compiler.Snapshot, Status, error) {
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
func (s *Rules) syncAndCompile(cur *compiler.Snapshot) (snap *compiler.Snapshot, hit bool, err error) {
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
	if opts.Bot, err = s.mirror.Bot(ctx); err != nil {
		return nil, false, err
	}
	opts.PRLookup = s.mirror.PRLookup(ctx)
	return s.compile(opts)
}

// refreshMirror runs in the background; the snapshot is swapped when done.
func (s *Rules) refreshMirror() {
	s.mu.Lock()
	cur := s.snap
	s.mu.Unlock()
	snap, _, err := s.syncAndCompile(cur)
	s.mu.Lock()
	s.refreshing, s.fromCache = false, false
	s.settle(snap, stamp{}, err, s.now())
	s.mu.Unlock()
	s.notify()
}

// settle records the outcome of a load: a new snapshot, or a failure that
// keeps the last good one and marks it stale. Callers hold s.mu.
func (s *Rules) settle(snap *compiler.Snapshot, st stamp, err error, now time.Time) (*compiler.Snapshot, Status, error) {
	if err == nil {
		if snap == s.snap && !s.status.Stale {
			return s.snap, s.status, nil
		}
		err = s.forwardOnly(snap)
	}
	if err == nil {
		s.snap, s.stamp, s.changed = snap, st, true
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
		s.status.Since, s.changed = now, true
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
func (s *Rules) forwardOnly(snap *compiler.Snapshot) error {
	if s.mirror != nil || s.file != "" || s.opts.Ref == "" || snap.Source.Commit == "" {
		return nil
	}
	prev := ""
	if s.snap != nil {
		prev = s.snap.Source.Commit
	} else if c, err := s.cachedCommit(); err == nil {
		prev = c
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
func (s *Rules) worktree() bool { return s.file == "" && s.mirror == nil && s.opts.Ref == "" }

func (s *Rules) rulesStamp() (stamp, error) {
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
func (s *Rules) compile(opts compiler.Options) (snap *compiler.Snapshot, hit bool, err error) {
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

// compiled is the input-keyed compile cache, under the same root as the
// snapshot cache.
func (s *Rules) compiled() compiler.Cache { return CompileCache(s.root) }

// CompileCache is the compile cache under a cache root (none for "").
func CompileCache(root string) compiler.Cache {
	if root == "" {
		return compiler.Cache{}
	}
	return compiler.Cache{Dir: filepath.Join(root, "compiled")}
}

func (s *Rules) loadFile() (*compiler.Snapshot, Status, error) {
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
			s.status.Since, s.changed = s.now(), true
		}
		s.status.Stale, s.status.Reason = true, err.Error()
		return s.snap, s.status, nil
	}
	s.snap, s.stamp, s.changed = &snap, stamp{st.Size(), st.ModTime()}, true
	s.status = Status{Commit: snap.Source.Commit, ContentHash: snap.ContentHash, CompiledAt: st.ModTime()}
	return s.snap, s.status, nil
}

// cacheKeyDir is the cache directory of this source (path and ref).
func (s *Rules) cacheKeyDir() string {
	abs, err := filepath.Abs(s.opts.Rules)
	if err != nil {
		abs = s.opts.Rules
	}
	sum := sha256.Sum256([]byte(abs + "\x00" + s.opts.Ref))
	return filepath.Join(s.cacheDir, hex.EncodeToString(sum[:8]))
}

// store caches snap under its commit (or content hash) and as latest.
func (s *Rules) store(snap *compiler.Snapshot, at time.Time) {
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

// cachedCommit is the commit of the snapshot served last, read without
// decoding the rest of it: decoding a whole snapshot sets up the JSON
// decoders of every type it holds (a tenth of a sidecar's start), and even
// validating the whole file is more than the hook needs. The snapshot's
// source comes before its document, so a streaming read stops early.
func (s *Rules) cachedCommit() (string, error) {
	if s.cacheDir == "" {
		return "", errors.New("cache disabled")
	}
	f, err := os.Open(filepath.Join(s.cacheKeyDir(), "latest.json"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	var src struct {
		Commit string `json:"commit"`
	}
	if !intoKey(dec, "snapshot") || !intoKey(dec, "source") || dec.Decode(&src) != nil {
		return "", errors.New("cached snapshot is damaged: no snapshot.source")
	}
	return src.Commit, nil
}

// intoKey reads dec's next value, an object, up to the value of key; false
// when it is not an object or has no such key.
func intoKey(dec *json.Decoder, key string) bool {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		if t == key {
			return true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

func (s *Rules) loadCache() (cached, error) {
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

// Load loads the rules once, exactly as a sidecar with o serves them: the
// committed ref (main by default), reviewed for approval, never moving
// backwards from what was served before, the last good snapshot (marked
// stale) when the rules cannot be used. bridle hook claude uses it so that
// the hook enforces what the sidecar serves.
func Load(o Options) (*compiler.Snapshot, Status, error) {
	o.Refresh = time.Second
	r, err := Open(o)
	if err != nil {
		return nil, Status{}, err
	}
	return r.Current()
}

// MirrorRoot is where Gitea mirrors are kept under the cache root, or a new
// temporary directory when there is no cache (root "").
func MirrorRoot(root string) (string, error) {
	if root != "" {
		return root, nil
	}
	return os.MkdirTemp("", "bridle-mirror-")
}

// CacheRoot is the one cache directory: $BRIDLE_CACHE_DIR, else the user
// cache directory's bridle; "" (no cache at all) when BRIDLE_CACHE_DIR is
// "off" or there is no user cache directory. Below it: snapshots/ (the last
// good snapshots served), compiled/ (the compile cache, shared with the
// CLI) and mirrors/ (Gitea mirrors).
func CacheRoot() string { return CacheRootFrom(os.Getenv) }

// CacheRootFrom is CacheRoot in the environment getenv reads.
func CacheRootFrom(getenv func(string) string) string {
	switch d := getenv("BRIDLE_CACHE_DIR"); d {
	case "off":
		return ""
	case "":
	default:
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "bridle")
}
