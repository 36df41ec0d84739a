package memory

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/schema"
)

// fakeModel is an OpenAI-compatible embedding server whose vectors are
// fixed by vec.
func fakeModel(t *testing.T, vec func(text string) []float32) *OpenAI {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		data := []item{}
		for i, in := range req.Input {
			data = append(data, item{i, vec(in)})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(srv.Close)
	return &OpenAI{URL: srv.URL, ModelName: "fake"}
}

// TestModelNeverRanksWorse: with an embedding server configured, pattern
// search fuses the model's ranking with the offline one, so it never ranks
// worse than the offline embedder alone. Fake servers answer fixed vectors:
// one vector for every text (a model that tells nothing apart), vectors of
// noise (a model that knows nothing of this code), and an oracle that
// knows which files answer the labelled questions. None may rank worse
// than the offline search (recall@10 and MRR over go-sdk's questions); the
// oracle must rank better.
func TestModelNeverRanksWorse(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a real repository")
	}
	var set labelledSet
	for _, s := range loadLabelled(t) {
		if s.Module == "github.com/modelcontextprotocol/go-sdk" {
			set = s
		}
	}
	dir := moduleDir(t, set.Module)
	ctx := context.Background()
	index := func(e Embedder) Store {
		store, err := OpenSQLite(filepath.Join(t.TempDir(), "f.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		if _, err := (&Indexer{Store: store, Embedder: e, Examples: ExampleOptions{Root: dir}}).Index(ctx, "q", schema.ExampleRepo{URL: dir, ReferenceTag: "q"}); err != nil {
			t.Fatal(err)
		}
		return store
	}
	run := func(s Store, e Embedder) score {
		var sum score
		for _, l := range set.Questions {
			hits, err := SearchPatterns(ctx, s, e, l.Q, "", 10, Hybrid)
			if err != nil {
				t.Fatal(err)
			}
			sum.add(judge(hits, l.Want))
		}
		return sum
	}
	offline := run(index(Hashing{}), Hashing{})
	dim := len(set.Questions) + 1
	unit := func(is ...int) []float32 {
		v := make([]float32, dim)
		for _, i := range is {
			v[i] = 1
		}
		return v
	}
	oracle := func(text string) []float32 {
		var is []int
		for i, l := range set.Questions {
			if text == l.Q {
				return unit(i)
			}
			head, _, _ := strings.Cut(strings.TrimPrefix(text, "file: "), "\n")
			path, _, _ := strings.Cut(head, " · ")
			if relevant(path, l.Want) {
				is = append(is, i)
			}
		}
		if len(is) == 0 {
			return unit(dim - 1)
		}
		return unit(is...)
	}
	noise := func(text string) []float32 {
		h := fnv.New64a()
		h.Write([]byte(text))
		r := rand.New(rand.NewPCG(h.Sum64(), 1))
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	for _, c := range []struct {
		name   string
		vec    func(string) []float32
		better bool
	}{
		{"one vector for every text", func(string) []float32 { return unit(0) }, false},
		{"noise", noise, false},
		{"oracle", oracle, true},
	} {
		e := fakeModel(t, c.vec)
		got := run(index(e), e)
		t.Logf("%s: %v against offline %v", c.name, got, offline)
		if got.recall < offline.recall || got.rr < offline.rr {
			t.Errorf("%s: the model's fusion ranks worse than offline: %v < %v", c.name, got, offline)
		}
		if c.better && got.rr <= offline.rr {
			t.Errorf("%s: the model's fusion ranks no better than offline: %v, %v", c.name, got, offline)
		}
	}
}
