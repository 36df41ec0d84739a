package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bridle-dev/bridle/redact"
)

// Embedder turns texts into vectors.
type Embedder interface {
	// Model names the model; it is recorded with each collection.
	Model() string
	// Dim is the vector dimension.
	Dim() int
	// Embed returns one L2-normalised vector per text.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Hashing is the offline default embedder: feature hashing of words, of the
// parts of code identifiers (camelCase and snake_case split) and of
// character trigrams, into a dense, L2-normalised vector. It needs no model
// and no network, and the same text always gives the same vector.
type Hashing struct {
	Dimensions int // default 384
}

// Model implements Embedder.
func (h Hashing) Model() string { return fmt.Sprintf("bridle-hashing-v1-%d", h.Dim()) }

// Dim implements Embedder.
func (h Hashing) Dim() int {
	if h.Dimensions <= 0 {
		return 384
	}
	return h.Dimensions
}

// Embed implements Embedder.
func (h Hashing) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = h.vector(t)
	}
	return out, nil
}

// stop words carry no meaning for search.
var stop = map[string]bool{"the": true, "a": true, "an": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"is": true, "it": true, "for": true, "on": true, "with": true, "as": true, "by": true, "be": true, "this": true, "that": true,
	"are": true, "if": true, "err": true, "nil": true, "return": true, "func": true, "var": true, "i": true, "how": true,
	"what": true, "where": true, "does": true, "do": true, "we": true, "from": true}

// Terms splits text into lower-case search terms: words, and the parts of
// identifiers (parseHTTPRequest → parse, http, request; snake_case → snake,
// case), keeping the whole identifier too.
func Terms(text string) []string {
	var out []string
	for _, word := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		parts := splitIdent(word)
		if len(parts) > 1 {
			out = append(out, strings.ToLower(strings.ReplaceAll(word, "_", "")))
		}
		for _, p := range parts {
			p = strings.ToLower(p)
			if len(p) > 1 && !stop[p] {
				out = append(out, p)
			}
		}
	}
	return out
}

// splitIdent splits an identifier at underscores and case changes
// (parseHTTPRequest → parse, HTTP, Request).
func splitIdent(s string) []string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return splitIdentRunes(s)
		}
	}
	// ASCII, most of code: the parts are substrings of s, nothing is copied.
	var parts []string
	for seg := range strings.SplitSeq(s, "_") {
		start := 0
		for i := 1; i < len(seg); i++ {
			lower := isLowerASCII(seg[i-1]) || '0' <= seg[i-1] && seg[i-1] <= '9'
			if isUpperASCII(seg[i]) && (lower || i+1 < len(seg) && isLowerASCII(seg[i+1])) {
				parts = append(parts, seg[start:i])
				start = i
			}
		}
		if start < len(seg) {
			parts = append(parts, seg[start:])
		}
	}
	return parts
}

func isLowerASCII(b byte) bool { return 'a' <= b && b <= 'z' }
func isUpperASCII(b byte) bool { return 'A' <= b && b <= 'Z' }

func splitIdentRunes(s string) []string {
	var parts []string
	for _, seg := range strings.Split(s, "_") {
		rs := []rune(seg)
		start := 0
		for i := 1; i < len(rs); i++ {
			lower := unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])
			if unicode.IsUpper(rs[i]) && (lower || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				parts = append(parts, string(rs[start:i]))
				start = i
			}
		}
		if start < len(rs) {
			parts = append(parts, string(rs[start:]))
		}
	}
	return parts
}

// Stems is Terms with light stemming (payouts → payout, validated →
// validat): what the keyword index stores and what keyword queries ask.
func Stems(text string) []string {
	ts := Terms(text)
	for i, t := range ts {
		ts[i] = stem(t)
	}
	return ts
}

func stem(w string) string {
	for _, suf := range []string{"ing", "ers", "ies", "ed", "es", "er", "s"} {
		if len(w) > len(suf)+3 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// expansionWeight is the weight of a thesaurus expansion in a query,
// relative to a word of the query itself.
const expansionWeight = 0.5

// QueryVector embeds a search query: its own words, and the thesaurus's
// expansions of them (Expand) at a lower weight. Documents are embedded
// with Embed; both live in the same space.
func (h Hashing) QueryVector(query string) []float32 {
	return h.vectorWith(query, Expand(query))
}

func (h Hashing) vector(text string) []float32 { return h.vectorWith(text, nil) }

func (h Hashing) vectorWith(text string, extra []string) []float32 {
	dim := h.Dim()
	v := make([]float64, dim)
	add := func(feature string, w float64) {
		f := fnv.New64a()
		f.Write([]byte(feature))
		x := f.Sum64()
		idx := int(x % uint64(dim))
		if x>>63 == 1 {
			w = -w
		}
		v[idx] += w
	}
	counts := map[string]int{}
	for _, t := range Terms(text) {
		counts[stem(t)]++
	}
	feature := func(t string, w float64) {
		add("w:"+t, w)
		if len(t) >= 4 {
			for i := 0; i+3 <= len(t); i++ {
				add("t:"+t[i:i+3], 0.25*w)
			}
		}
	}
	for t, n := range counts {
		feature(t, 1+math.Log(float64(n)))
	}
	for _, t := range extra {
		feature(t, expansionWeight)
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dim)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// OpenAI is a client for any OpenAI-compatible /v1/embeddings endpoint:
// LM Studio, Ollama, llama.cpp, vLLM, OpenAI.
type OpenAI struct {
	URL        string // base URL, e.g. http://127.0.0.1:1234/v1 (EMBEDDINGS_URL)
	ModelName  string // EMBEDDINGS_MODEL
	Key        string // EMBEDDINGS_API_KEY; never printed
	Dimensions int    // 0: learned from the first answer
	Batch      int    // texts per request; default 64
	HTTP       *http.Client
	Retries    int           // default 3
	Backoff    time.Duration // default 250 ms
}

// ErrEmbeddings marks failures of the embedding server.
var ErrEmbeddings = errors.New("embedding server")

// Model implements Embedder.
func (o *OpenAI) Model() string { return o.ModelName }

// Dim implements Embedder.
func (o *OpenAI) Dim() int { return o.Dimensions }

func (o *OpenAI) endpoint() string {
	u := strings.TrimSuffix(o.URL, "/")
	if strings.HasSuffix(u, "/embeddings") {
		return u
	}
	if !strings.HasSuffix(u, "/v1") {
		u += "/v1"
	}
	return u + "/embeddings"
}

// Embed implements Embedder: batches, retries 429, 5xx and timeouts with
// back-off, and normalises the vectors.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	batch := o.Batch
	if batch <= 0 {
		batch = 64
	}
	out := make([][]float32, 0, len(texts))
	for i := 0; i < len(texts); i += batch {
		vs, err := o.embedBatch(ctx, texts[i:min(i+batch, len(texts))])
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

func (o *OpenAI) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	client := o.HTTP
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	retries, backoff := o.Retries, o.Backoff
	if retries <= 0 {
		retries = 3
	}
	if backoff <= 0 {
		backoff = 250 * time.Millisecond
	}
	body, _ := json.Marshal(map[string]any{"model": o.ModelName, "input": texts})
	var last error
	for attempt := 0; attempt < retries; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("%w at %s: %v", ErrEmbeddings, o.URL, ctx.Err())
			case <-time.After(backoff << (attempt - 1)):
			}
		}
		req, _ := http.NewRequestWithContext(ctx, "POST", o.endpoint(), bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if o.Key != "" {
			req.Header.Set("Authorization", "Bearer "+o.Key)
		}
		resp, err := client.Do(req)
		if err != nil {
			last = fmt.Errorf("%w at %s is unreachable or slow: %v", ErrEmbeddings, o.URL, scrub(err, o.Key))
			continue
		}
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
		resp.Body.Close()
		if resp.StatusCode == 429 || resp.StatusCode >= 500 {
			last = fmt.Errorf("%w at %s answered %s", ErrEmbeddings, o.URL, resp.Status)
			continue
		}
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("%w at %s answered %s: %s", ErrEmbeddings, o.URL, resp.Status, scrubText(snippet(data), o.Key))
		}
		var r struct {
			Data []struct {
				Index     int       `json:"index"`
				Embedding []float32 `json:"embedding"`
			} `json:"data"`
		}
		if err := json.Unmarshal(data, &r); err != nil || len(r.Data) != len(texts) {
			return nil, fmt.Errorf("%w at %s sent a malformed answer (vectors: %d, for texts: %d)", ErrEmbeddings, o.URL, len(r.Data), len(texts))
		}
		out := make([][]float32, len(texts))
		for _, d := range r.Data {
			if d.Index < 0 || d.Index >= len(texts) || len(d.Embedding) == 0 {
				return nil, fmt.Errorf("%w at %s sent a malformed answer", ErrEmbeddings, o.URL)
			}
			if o.Dimensions == 0 {
				o.Dimensions = len(d.Embedding)
			}
			if len(d.Embedding) != o.Dimensions {
				return nil, fmt.Errorf("%w at %s returned %d dimensions, expected %d", ErrEmbeddings, o.URL, len(d.Embedding), o.Dimensions)
			}
			out[d.Index] = normalize(d.Embedding)
		}
		return out, nil
	}
	return nil, last
}

func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	s := float32(1 / math.Sqrt(n))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * s
	}
	return out
}

func snippet(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return strings.TrimSpace(string(b))
}

func scrub(err error, secret string) string { return scrubText(err.Error(), secret) }

// scrubText masks the API key in s, in every form redact knows (an error
// may quote it URL- or JSON-escaped).
func scrubText(s, secret string) string { return redact.New(secret).Redact(s) }
