package live

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// commit writes rules as bridle.yaml in dir's repository (made on first
// use) and commits them on main.
func commit(t *testing.T, dir string, rules []byte) {
	t.Helper()
	repo, err := git.PlainOpen(dir)
	if err != nil {
		if repo, err = git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: "refs/heads/main"}}); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "bridle.yaml"), rules, 0o644)
	wt, _ := repo.Worktree()
	wt.Add("bridle.yaml")
	if _, err := wt.Commit("rules", &git.CommitOptions{Author: &object.Signature{Name: "Mira", Email: "m@x", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
}

func example(t *testing.T) []byte {
	b, err := os.ReadFile("../examples/runic-gateway/bridle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// clock is a test clock moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// TestSubscribeTellsOfChanges: a subscriber hears of the first snapshot, of
// a new commit, and of the rules turning unusable (stale), once each.
func TestSubscribeTellsOfChanges(t *testing.T) {
	dir := t.TempDir()
	src := example(t)
	commit(t, dir, src)
	c := &clock{t: time.Unix(1e9, 0)}
	r, err := Open(Options{Rules: dir, CacheDir: t.TempDir(), Refresh: time.Second, Now: c.now, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var heard []Status
	cancel := r.Subscribe(func(s Status) { heard = append(heard, s) })
	first, _, err := r.Current()
	if err != nil {
		t.Fatal(err)
	}
	r.Current() // within Refresh: nothing new
	commit(t, dir, []byte(strings.Replace(string(src), "Runic Gateway", "Runic Gateway II", 1)))
	c.t = c.t.Add(2 * time.Second)
	second, _, _ := r.Current()
	commit(t, dir, []byte("schema_version: 1\nproject: {id: [not, a, string]}\n"))
	c.t = c.t.Add(2 * time.Second)
	r.Current()
	c.t = c.t.Add(2 * time.Second)
	r.Current() // still broken: no news
	cancel()
	commit(t, dir, src)
	c.t = c.t.Add(2 * time.Second)
	r.Current() // after cancel: not heard
	if len(heard) != 3 || heard[0].Commit != first.Source.Commit || heard[1].Commit != second.Source.Commit ||
		heard[0].Stale || heard[1].Stale || !heard[2].Stale || !strings.Contains(heard[2].Reason, "project.id") {
		t.Errorf("heard %d changes: %+v", len(heard), heard)
	}
}

// TestOneCacheRoot: snapshots and the compile cache live under one root;
// "off" turns every cache off without creating a directory named off.
func TestOneCacheRoot(t *testing.T) {
	dir := t.TempDir()
	commit(t, dir, example(t))
	root := t.TempDir()
	r, _ := Open(Options{Rules: dir, CacheDir: root, Version: "test"})
	if _, _, err := r.Current(); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"snapshots", "compiled"} {
		if entries, err := os.ReadDir(filepath.Join(root, sub)); err != nil || len(entries) == 0 {
			t.Errorf("%s/ under the cache root: %v, %d entries", sub, err, len(entries))
		}
	}

	wd := t.TempDir()
	t.Chdir(wd)
	t.Setenv("BRIDLE_CACHE_DIR", "off")
	if CacheRoot() != "" {
		t.Errorf("CacheRoot with off = %q", CacheRoot())
	}
	r, _ = Open(Options{Rules: dir, Version: "test"})
	if _, _, err := r.Current(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(wd); len(entries) != 0 {
		t.Errorf("BRIDLE_CACHE_DIR=off wrote into the working directory: %v", entries)
	}
	t.Setenv("BRIDLE_CACHE_DIR", root)
	if CacheRoot() != root {
		t.Errorf("CacheRoot = %q, want %q", CacheRoot(), root)
	}
}

// TestMovedBackAcrossProcesses: a process that has served nothing yet
// (the hook, a new sidecar) refuses a ref that moved back from what an
// earlier process served, reading that commit from the snapshot cache.
func TestMovedBackAcrossProcesses(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	src := example(t)
	commit(t, dir, src)
	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := repo.Head()
	commit(t, dir, []byte(strings.Replace(string(src), "Runic Gateway", "Runic Gateway II", 1)))
	if _, _, err := Load(Options{Rules: dir, Ref: "main", CacheDir: cache, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	if err := repo.Storer.SetReference(plumbing.NewHashReference("refs/heads/main", before.Hash())); err != nil {
		t.Fatal(err)
	}
	_, st, err := Load(Options{Rules: dir, Ref: "main", CacheDir: cache, Version: "test"})
	if !errors.Is(err, ErrMovedBack) && !strings.Contains(st.Reason, "does not descend") {
		t.Fatalf("a new process after main moved back: err %v, status %+v", err, st)
	}
	// A damaged cache is no history to hold to: the rules are served.
	if err := filepath.WalkDir(filepath.Join(cache, "snapshots"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "latest.json" {
			err = os.WriteFile(p, []byte(`{"snapshot": 7}`), 0o600)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, st, err := Load(Options{Rules: dir, Ref: "main", CacheDir: cache, Version: "test"}); err != nil || st.Stale {
		t.Fatalf("with a damaged cache: err %v, status %+v", err, st)
	}
}
