package memory

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bridle-dev/bridle/internal/lazyregexp"
	"github.com/bridle-dev/bridle/redact"
)

// MemoryCollection holds session memory.
const MemoryCollection = "memory"

// Kinds of memory.
var Kinds = []string{"decision", "context", "history", "note"}

// Limits on what an agent may store.
const (
	MaxMemoryText = 16 << 10
	MaxTags       = 20
	MaxQuery      = 2000
	MaxK          = 50
)

// ErrInput marks bad input from a caller.
var ErrInput = errors.New("bad input")

var tagRe = lazyregexp.New(`^[a-z0-9][a-z0-9._-]{0,39}$`)

// Memory is session memory for one project.
type Memory struct {
	Store    Store
	Embedder Embedder
	Project  string
	Now      func() time.Time
	// Redactor masks secrets in what is stored, at write time: memory
	// outlives the process, and whoever reads it later (another sidecar, the
	// CLI) may not know the secret to mask it then. Passwords in URLs and
	// connection strings are masked even without a Redactor.
	Redactor *redact.Redactor
}

// maskSecrets masks known secrets and any password in agent text.
func maskSecrets(red *redact.Redactor, s string) string {
	s, _ = redact.MaskCredentials(red.Redact(s))
	return s
}

// Entry is what Remember stores.
type Entry struct {
	Text    string
	Kind    string
	Tags    []string
	Agent   string
	Session string
}

func cleanText(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x200b && unicode.Is(unicode.Cf, r) {
			return -1 // controls, and invisible format characters (zero-width, bidi, tags)
		}
		return r
	}, s)
}

// Remember stores an entry and returns its record.
func (m *Memory) Remember(ctx context.Context, e Entry) (Record, error) {
	text := strings.TrimSpace(maskSecrets(m.Redactor, cleanText(e.Text)))
	switch {
	case text == "":
		return Record{}, fmt.Errorf("%w: nothing to remember (empty text)", ErrInput)
	case !utf8.ValidString(text):
		return Record{}, fmt.Errorf("%w: text is not valid UTF-8", ErrInput)
	case len(text) > MaxMemoryText:
		return Record{}, fmt.Errorf("%w: text is %d bytes; memories are at most %d — store a summary, or split it", ErrInput, len(text), MaxMemoryText)
	case !slices.Contains(Kinds, e.Kind):
		return Record{}, fmt.Errorf("%w: kind %q is not one of %s", ErrInput, e.Kind, strings.Join(Kinds, ", "))
	case len(e.Tags) > MaxTags:
		return Record{}, fmt.Errorf("%w: at most %d tags", ErrInput, MaxTags)
	}
	tags := make([]string, 0, len(e.Tags))
	for i, t := range e.Tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if maskSecrets(m.Redactor, t) != t || m.Redactor.Contains(e.Tags[i]) {
			// Never echo it: the error goes back to the agent and the log.
			return Record{}, fmt.Errorf("%w: tag %d %w; tags are not stored masked, so remove it", ErrInput, i+1, redact.ErrSecret)
		}
		if !tagRe.MatchString(t) {
			return Record{}, fmt.Errorf("%w: tag %q: use lower-case letters, digits, '.', '_' and '-', at most 40", ErrInput, t)
		}
		tags = append(tags, t)
	}
	if err := ensure(ctx, m.Store, MemoryCollection, m.Embedder); err != nil {
		return Record{}, err
	}
	vs, err := m.Embedder.Embed(ctx, []string{text})
	if err != nil {
		return Record{}, err
	}
	now := time.Now
	if m.Now != nil {
		now = m.Now
	}
	b := make([]byte, 8)
	rand.Read(b)
	r := Record{ID: "m-" + hex.EncodeToString(b), Text: text, Vector: vs[0], Tags: slices.Compact(slices.Sorted(slices.Values(tags))), Created: now().UTC(),
		Payload: map[string]string{"project": m.Project, "kind": e.Kind, "agent": e.Agent, "session": e.Session}}
	if err := m.Store.Upsert(ctx, MemoryCollection, []Record{r}); err != nil {
		return Record{}, err
	}
	return r, nil
}

// RecallQuery selects memories.
type RecallQuery struct {
	Text  string
	K     int
	Kind  string
	Tags  []string
	Agent string
	Mode  Mode
}

func (m *Memory) filter(kind string, tags []string, agent string) Filter {
	f := Filter{Fields: map[string]string{"project": m.Project}, Tags: tags}
	if kind != "" {
		f.Fields["kind"] = kind
	}
	if agent != "" {
		f.Fields["agent"] = agent
	}
	return f
}

// Recall searches the project's memories.
func (m *Memory) Recall(ctx context.Context, q RecallQuery) ([]Hit, error) {
	text := strings.TrimSpace(cleanText(q.Text))
	switch {
	case text == "":
		return nil, fmt.Errorf("%w: empty query; say what you are looking for", ErrInput)
	case len(text) > MaxQuery:
		return nil, fmt.Errorf("%w: query longer than %d characters", ErrInput, MaxQuery)
	case q.Kind != "" && !slices.Contains(Kinds, q.Kind):
		return nil, fmt.Errorf("%w: kind %q is not one of %s", ErrInput, q.Kind, strings.Join(Kinds, ", "))
	}
	if q.K <= 0 {
		q.K = 5
	}
	q.K = min(q.K, MaxK)
	if err := ensure(ctx, m.Store, MemoryCollection, m.Embedder); err != nil {
		return nil, err
	}
	vs, err := m.Embedder.Embed(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return m.Store.Search(ctx, MemoryCollection, Query{Text: text, Vector: vs[0], K: q.K, Mode: q.Mode, Filter: m.filter(q.Kind, q.Tags, q.Agent)})
}

// Forget deletes one memory of this project.
func (m *Memory) Forget(ctx context.Context, id string) error {
	r, err := m.Store.Get(ctx, MemoryCollection, id)
	if err != nil {
		if errors.Is(err, ErrNoCollection) {
			return fmt.Errorf("memory %q: %w", id, ErrNotFound)
		}
		return err
	}
	if r.Payload["project"] != m.Project {
		return fmt.Errorf("memory %q: %w", id, ErrNotFound)
	}
	return m.Store.DeleteID(ctx, MemoryCollection, id)
}

// List returns the project's memories, newest first.
func (m *Memory) List(ctx context.Context, kind string, tags []string, agent string, limit int) ([]Record, error) {
	return m.Store.List(ctx, MemoryCollection, m.filter(kind, tags, agent), limit)
}

// Count is how many of the project's memories match (what Purge would
// delete).
func (m *Memory) Count(ctx context.Context, kind string, tags []string, agent string) (int, error) {
	return m.Store.Count(ctx, MemoryCollection, m.filter(kind, tags, agent))
}

// Purge deletes the project's memories that match.
func (m *Memory) Purge(ctx context.Context, kind string, tags []string, agent string) (int, error) {
	return m.Store.Delete(ctx, MemoryCollection, m.filter(kind, tags, agent))
}

// SearchPatterns searches pattern examples.
func SearchPatterns(ctx context.Context, s Store, e Embedder, query, archTag string, k int, mode Mode) ([]Hit, error) {
	query = strings.TrimSpace(cleanText(query))
	if query == "" {
		return nil, fmt.Errorf("%w: empty query; describe the code you are looking for", ErrInput)
	}
	if len(query) > MaxQuery {
		return nil, fmt.Errorf("%w: query longer than %d characters", ErrInput, MaxQuery)
	}
	if k <= 0 {
		k = 5
	}
	k = min(k, MaxK)
	if err := ensure(ctx, s, PatternsCollection, e); err != nil {
		return nil, err
	}
	var vec []float32
	if h, ok := e.(Hashing); ok {
		vec = h.QueryVector(query) // a model knows synonyms; feature hashing needs the thesaurus
	} else {
		vs, err := e.Embed(ctx, []string{query})
		if err != nil {
			return nil, err
		}
		vec = vs[0]
	}
	f := Filter{}
	if archTag != "" {
		f.Fields = map[string]string{"arch_tag": archTag}
	}
	q := Query{Text: query, Expand: Expand(query), Vector: vec, K: 2 * k, Filter: f, Mode: mode}
	if _, ok := e.(Hashing); !ok && mode != Keyword {
		if n, err := s.Count(ctx, offlineCollection, f); err == nil && n > 0 {
			return withOffline(ctx, s, q, k)
		}
	}
	hits, err := s.Search(ctx, PatternsCollection, q)
	if err != nil {
		return nil, err
	}
	return diverse(byFile(Stems(query), q.Expand, hits), k), nil
}

// withOffline ranks with a model's vectors and the offline search together:
// the offline search (its own vectors and keywords, in offlineCollection)
// fused with the model's vector ranking. A model whose vectors do not tell
// the chunks apart (a server answering one vector for everything) is left
// out, so the results are then exactly the offline ones; a model never
// replaces the offline ranking, it can only add to it.
func withOffline(ctx context.Context, s Store, q Query, k int) ([]Hit, error) {
	oq := q
	oq.Vector = Hashing{}.QueryVector(q.Text)
	off, err := s.Search(ctx, offlineCollection, oq)
	if err != nil {
		return nil, err
	}
	mq := q
	mq.Mode = Vector
	model, err := s.Search(ctx, PatternsCollection, mq)
	if err != nil {
		return nil, err
	}
	if !discriminates(model) || !agrees(model, off) {
		return diverse(byFile(Stems(q.Text), q.Expand, off), k), nil
	}
	return diverse(byFile(Stems(q.Text), q.Expand, rrf([][]Hit{off, model}, []float64{1, modelWeight}, q.K)), k), nil
}

// modelWeight is the model's ranking's weight against the offline search's.
const modelWeight = 1.0

// agrees reports whether two rankings share at least two results: a model
// whose candidates have (next to) nothing in common with the offline
// search's is not trusted to reorder them (its vectors may be noise for
// this code; two random rankings rarely share two).
func agrees(a, b []Hit) bool {
	ids := map[string]bool{}
	for _, h := range b {
		ids[h.ID] = true
	}
	n := 0
	for _, h := range a {
		if ids[h.ID] {
			n++
		}
	}
	return n >= 2
}

// discriminates reports whether a vector ranking orders anything: its
// scores are not all the same.
func discriminates(hits []Hit) bool {
	for _, h := range hits {
		if math.Abs(h.Score-hits[0].Score) > 1e-6 {
			return true
		}
	}
	return false
}

// perFile is how many chunks of one file a pattern search returns before
// the chunks of other files: more of one file push the other files that
// answer a question out of the results (one ranked best on the tuning
// questions: recall@10 0.863 → 0.877 against two).
const perFile = 1

// diverse keeps hits in order, at most perFile chunks of each file, then
// fills up to k with the chunks it skipped.
func diverse(hits []Hit, k int) []Hit {
	out := make([]Hit, 0, k)
	var rest []Hit
	n := map[string]int{}
	for _, h := range hits {
		p := unit(h.Payload["file_path"])
		if n[p] < perFile && len(out) < k {
			n[p]++
			out = append(out, h)
		} else {
			rest = append(rest, h)
		}
	}
	for _, h := range rest {
		if len(out) == k {
			break
		}
		out = append(out, h)
	}
	return out
}

// Config chooses the store and the embedder.
type Config struct {
	DataDir        string // embedded store directory; DataDirFrom(os.Getenv) when empty
	QdrantURL      string // QDRANT_URL: use Qdrant instead of the embedded store
	QdrantKey      string // QDRANT_API_KEY
	EmbeddingsURL  string // EMBEDDINGS_URL: an OpenAI-compatible server instead of the offline embedder
	EmbeddingModel string // EMBEDDINGS_MODEL
	EmbeddingsKey  string // EMBEDDINGS_API_KEY
}

// ConfigFrom fills c's unset fields from the environment getenv reads
// (QDRANT_URL, QDRANT_API_KEY, EMBEDDINGS_URL, EMBEDDINGS_MODEL,
// EMBEDDINGS_API_KEY, and the data directory: DataDirFrom).
func ConfigFrom(getenv func(string) string, c Config) Config {
	if c.DataDir == "" {
		c.DataDir = DataDirFrom(getenv)
	}
	for _, kv := range []struct {
		dst *string
		env string
	}{{&c.QdrantURL, "QDRANT_URL"}, {&c.QdrantKey, "QDRANT_API_KEY"}, {&c.EmbeddingsURL, "EMBEDDINGS_URL"},
		{&c.EmbeddingModel, "EMBEDDINGS_MODEL"}, {&c.EmbeddingsKey, "EMBEDDINGS_API_KEY"}} {
		if *kv.dst == "" {
			*kv.dst = getenv(kv.env)
		}
	}
	return c
}

// DataDirFrom is $BRIDLE_DATA_DIR, else $XDG_DATA_HOME/bridle, else
// ~/.local/share/bridle, in the environment getenv reads.
func DataDirFrom(getenv func(string) string) string {
	if d := getenv("BRIDLE_DATA_DIR"); d != "" {
		return d
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "bridle")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "bridle")
	}
	return filepath.Join(home, ".local", "share", "bridle")
}

// ensure makes coll ready for e, learning e's dimension first when the
// embedder only knows it after a call (OpenAI-compatible servers).
func ensure(ctx context.Context, s Store, coll string, e Embedder) error {
	if e.Dim() == 0 {
		if _, err := e.Embed(ctx, []string{"dimension probe"}); err != nil {
			return err
		}
	}
	return s.Ensure(ctx, coll, e.Model(), e.Dim())
}

// Open returns the store and embedder c describes.
func Open(c Config) (Store, Embedder, error) {
	var emb Embedder = Hashing{}
	if c.EmbeddingsURL != "" {
		if c.EmbeddingModel == "" {
			return nil, nil, fmt.Errorf("%w: EMBEDDINGS_URL is set but EMBEDDINGS_MODEL is not", ErrInput)
		}
		emb = &OpenAI{URL: c.EmbeddingsURL, ModelName: c.EmbeddingModel, Key: c.EmbeddingsKey, HTTP: &http.Client{Timeout: 30 * time.Second}}
	}
	if c.QdrantURL != "" {
		s, err := OpenQdrant(c.QdrantURL, c.QdrantKey)
		return s, emb, err
	}
	dir := c.DataDir
	if dir == "" {
		dir = DataDirFrom(os.Getenv) // a library caller that set none
	}
	s, err := OpenSQLite(filepath.Join(dir, "memory.db"))
	return s, emb, err
}
