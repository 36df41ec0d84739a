package memory

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func TestProjectDir(t *testing.T) {
	safe := regexp.MustCompile(`^[a-z0-9_-][a-z0-9._-]*$`)
	seen := map[string]string{}
	for _, tc := range []struct {
		id   string
		same bool // a safe id is its own directory's name
	}{
		{"acme", true}, {"runic-gateway", true}, {"a.b_c", true},
		{"Acme", false}, {"../etc", false}, {"..", false}, {"", false}, {"a/b", false}, {"é", false},
	} {
		dir := ProjectDir("/d", tc.id)
		base := filepath.Base(dir)
		if filepath.Dir(dir) != "/d/projects" || !safe.MatchString(base) {
			t.Errorf("ProjectDir(%q) = %s: not one safe element under /d/projects", tc.id, dir)
		}
		if (base == tc.id) != tc.same {
			t.Errorf("ProjectDir(%q) = %s", tc.id, dir)
		}
		if other, ok := seen[base]; ok {
			t.Errorf("%q and %q share %s", tc.id, other, dir)
		}
		seen[base] = tc.id
	}
}

// A project's first open is seeded from the store every project of the
// sidecar shared: its own memories and the pattern index come along,
// another project's memories do not; later opens are the project's own.
func TestOpenProjectSeedsFromTheSharedStore(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	shared, emb, err := Open(Config{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"acme", "other"} {
		if _, err := (&Memory{Store: shared, Embedder: emb, Project: p}).Remember(ctx, Entry{Text: "a decision of " + p, Kind: "decision", Agent: "claude"}); err != nil {
			t.Fatal(err)
		}
	}
	// A memory of another project, in words of its own: no byte of it may
	// stay in acme's file (freed pages, the keyword index's segments).
	if _, err := (&Memory{Store: shared, Embedder: emb, Project: "other"}).Remember(ctx, Entry{Text: "Quillfeather merger plan, secret until March", Kind: "decision", Agent: "claude"}); err != nil {
		t.Fatal(err)
	}
	ensure(ctx, shared, PatternsCollection, emb)
	if err := shared.Upsert(ctx, PatternsCollection, []Record{{ID: "c1", Text: "func Relay() {}", Payload: map[string]string{"reference_tag": "outbox-1"}, Vector: mustEmbed(t, emb, "func Relay() {}")}}); err != nil {
		t.Fatal(err)
	}
	shared.Close()

	st, emb, err := OpenProject(Config{DataDir: data}, "acme")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	m := &Memory{Store: st, Embedder: emb, Project: "acme"}
	if n, _ := st.Count(ctx, MemoryCollection, Filter{}); n != 1 {
		t.Errorf("the project's store holds %d memories, want its own 1", n)
	}
	if hits, err := m.Recall(ctx, RecallQuery{Text: "decision"}); err != nil || len(hits) != 1 || hits[0].Text != "a decision of acme" {
		t.Errorf("recall in the project's store: %v %+v", err, hits)
	}
	if n, _ := st.Count(ctx, PatternsCollection, Filter{}); n != 1 {
		t.Errorf("the pattern index did not come along: %d chunks", n)
	}
	st.Close()
	files, _ := filepath.Glob(filepath.Join(ProjectDir(data, "acme"), "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte("Quillfeather")) {
			t.Errorf("%s still holds another project's memory", f)
		}
	}
}

func mustEmbed(t *testing.T, e Embedder, s string) []float32 {
	t.Helper()
	vs, err := e.Embed(context.Background(), []string{s})
	if err != nil {
		t.Fatal(err)
	}
	return vs[0]
}

// TestOpenProjectCarriesQdrantMemories: a sidecar on Qdrant kept every
// project's memories in one shared collection; the project's own
// namespace starts with its memories (not another project's), once.
func TestOpenProjectCarriesQdrantMemories(t *testing.T) {
	ctx := context.Background()
	_, addr := startFakeQdrant(t)
	c := Config{QdrantURL: addr, DataDir: t.TempDir()}
	shared, emb, err := Open(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"acme", "other"} {
		if _, err := (&Memory{Store: shared, Embedder: emb, Project: p}).Remember(ctx, Entry{Text: "a decision of " + p, Kind: "decision", Agent: "claude"}); err != nil {
			t.Fatal(err)
		}
	}
	shared.Close()
	for range 2 { // the second open carries nothing again
		st, emb, err := OpenProject(c, "acme")
		if err != nil {
			t.Fatal(err)
		}
		hits, err := (&Memory{Store: st, Embedder: emb, Project: "acme"}).Recall(ctx, RecallQuery{Text: "decision"})
		if n, _ := st.Count(ctx, MemoryCollection, Filter{}); err != nil || n != 1 || len(hits) != 1 || hits[0].Text != "a decision of acme" {
			t.Errorf("the project's namespace holds %d memories, recall %v %+v; want its own one", n, err, hits)
		}
		st.Close()
	}
}
