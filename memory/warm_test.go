package memory

import (
	"context"
	"path/filepath"
	"testing"
)

// Warm loads the index of every collection the store holds and creates
// none: an empty store stays empty, and a filled one answers its first
// search from the loaded index.
func TestWarm(t *testing.T) {
	ctx := context.Background()
	s, err := OpenSQLite(filepath.Join(t.TempDir(), "memory.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Warm(ctx); err != nil {
		t.Fatalf("warm an empty store: %v", err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM collections`).Scan(&n); err != nil || n != 0 {
		t.Errorf("warming created a collection: %d %v", n, err)
	}
	m := &Memory{Store: s, Embedder: Hashing{}, Project: "p"}
	if _, err := m.Remember(ctx, Entry{Text: "We chose SQLite for the queue.", Kind: "decision", Agent: "claude"}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.idx = map[string]*index{} // as after a restart
	s.mu.Unlock()
	if err := s.Warm(ctx); err != nil {
		t.Fatalf("warm: %v", err)
	}
	s.mu.Lock()
	_, loaded := s.idx[MemoryCollection]
	s.mu.Unlock()
	if !loaded {
		t.Error("the memory collection's index is not loaded after Warm")
	}
}
