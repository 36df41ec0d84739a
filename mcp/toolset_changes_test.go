package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/memory"
)

// TestNewRulesAnnounceTools: when a new commit changes what an agent may
// use, connected sessions are told to list the tools again, and the list
// they get follows the new rules; a commit that changes no permission is
// not announced.
func TestNewRulesAnnounceTools(t *testing.T) {
	dir := exampleRepo(t, t.TempDir())
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	f := newFixture(t, Options{Rules: dir, Now: func() time.Time { return now }, Refresh: time.Second,
		Memory: func() (memory.Store, memory.Embedder, error) {
			s, err := memory.OpenSQLite(filepath.Join(t.TempDir(), "m.db"))
			return s, memory.Hashing{}, err
		}})
	cs, changed := f.connectWatching(t, "claude-code", "")
	f.untilListening(t, changed)
	if !slices.Contains(listedNames(t, cs), "remember") {
		t.Fatal("claude cannot remember to begin with")
	}
	src, _ := os.ReadFile(filepath.Join(dir, "bridle.yaml"))
	// A restriction takes effect even unapproved (permissions are the
	// current ∩ the approved).
	less := strings.Replace(string(src), "    memory: {read: true, write: true, forget: false}\n", "    memory: {read: true, write: false, forget: false}\n", 1)
	if less == string(src) {
		t.Fatal("the example's claude memory permissions moved")
	}
	commitRules(t, dir, []byte(less))
	now = now.Add(2 * time.Second)
	callText(t, cs, "get_rules", nil) // the next request sees the new commit
	waitChanged(t, "claude", changed)
	if slices.Contains(listedNames(t, cs), "remember") {
		t.Error("after the announcement claude still lists remember")
	}
	// Only the overview changes: nothing to announce.
	commitRules(t, dir, []byte(strings.Replace(less, "Runic Gateway", "Runic Gateway II", 1)))
	now = now.Add(2 * time.Second)
	callText(t, cs, "get_rules", nil)
	select {
	case <-changed:
		t.Error("a change that grants and revokes nothing was announced")
	case <-time.After(300 * time.Millisecond):
	}
}
