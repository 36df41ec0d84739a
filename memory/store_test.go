package memory

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// storeSuite is the one test body every Store implementation runs.
func storeSuite(t *testing.T, open func(t *testing.T) Store) {
	ctx := context.Background()
	emb := Hashing{}
	vec := func(s string) []float32 { v, _ := emb.Embed(ctx, []string{s}); return v[0] }
	rec := func(id, text string, payload map[string]string, tags ...string) Record {
		return Record{ID: id, Text: text, Payload: payload, Tags: tags, Vector: vec(text)}
	}

	t.Run("ensure", func(t *testing.T) {
		s := open(t)
		if err := s.Ensure(ctx, "c", emb.Model(), emb.Dim()); err != nil {
			t.Fatal(err)
		}
		if err := s.Ensure(ctx, "c", emb.Model(), emb.Dim()); err != nil {
			t.Fatal(err)
		}
		err := s.Ensure(ctx, "c", "other-model", 768)
		if !errors.Is(err, ErrModelMismatch) || !strings.Contains(err.Error(), "re-index") {
			t.Errorf("mismatch: %v", err)
		}
	})

	t.Run("crud", func(t *testing.T) {
		s := open(t)
		s.Ensure(ctx, "m", emb.Model(), emb.Dim())
		recs := []Record{
			rec("a", "Use pgx for PostgreSQL access", map[string]string{"kind": "decision", "agent": "claude"}, "db", "go"),
			rec("b", "The gateway rate limits per tenant", map[string]string{"kind": "context", "agent": "codex"}, "limits"),
			rec("c", "Deploys go through Helm", map[string]string{"kind": "decision", "agent": "codex"}),
		}
		if err := s.Upsert(ctx, "m", recs); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.Count(ctx, "m", Filter{}); n != 3 {
			t.Errorf("count = %d", n)
		}
		if n, _ := s.Count(ctx, "m", Filter{Fields: map[string]string{"kind": "decision"}}); n != 2 {
			t.Errorf("count decisions = %d", n)
		}
		if n, _ := s.Count(ctx, "m", Filter{Tags: []string{"db"}}); n != 1 {
			t.Errorf("count tag db = %d", n)
		}
		got, err := s.Get(ctx, "m", "a")
		if err != nil || got.Text != recs[0].Text || got.Payload["agent"] != "claude" || len(got.Tags) != 2 {
			t.Errorf("get = %+v %v", got, err)
		}
		if _, err := s.Get(ctx, "m", "zzz"); !errors.Is(err, ErrNotFound) {
			t.Errorf("get missing: %v", err)
		}
		upd := rec("a", "Use pgx v5 for PostgreSQL access", map[string]string{"kind": "decision", "agent": "claude"})
		s.Upsert(ctx, "m", []Record{upd})
		if got, _ := s.Get(ctx, "m", "a"); got.Text != upd.Text {
			t.Errorf("upsert did not replace: %q", got.Text)
		}
		if n, _ := s.Count(ctx, "m", Filter{}); n != 3 {
			t.Errorf("count after upsert = %d", n)
		}
		list, _ := s.List(ctx, "m", Filter{Fields: map[string]string{"agent": "codex"}}, 10)
		if len(list) != 2 {
			t.Errorf("list = %d", len(list))
		}
		if err := s.DeleteID(ctx, "m", "b"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteID(ctx, "m", "b"); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete twice: %v", err)
		}
		if n, err := s.Delete(ctx, "m", Filter{Fields: map[string]string{"agent": "codex"}}); err != nil || n != 1 {
			t.Errorf("delete by filter: %d %v", n, err)
		}
		if n, _ := s.Count(ctx, "m", Filter{}); n != 1 {
			t.Errorf("count after deletes = %d", n)
		}
	})

	t.Run("search", func(t *testing.T) {
		s := open(t)
		s.Ensure(ctx, "p", emb.Model(), emb.Dim())
		var recs []Record
		texts := []string{
			"func ParseHTTPRequest(r *bufio.Reader) (*Request, error) parses a request line and headers",
			"func (c *Client) Do(req *Request) sends the request with retries and backoff",
			"type RateLimiter struct{ buckets map[string]*TokenBucket } limits requests per tenant",
			"func OpenLedger(ctx context.Context, dsn string) (*Ledger, error) connects to PostgreSQL",
			"Markdown guide: how to write migrations with goose, forward only",
		}
		for i, tx := range texts {
			arch := "a"
			if i%2 == 1 {
				arch = "b"
			}
			recs = append(recs, rec(fmt.Sprint(i), tx, map[string]string{"arch_tag": arch, "file_path": fmt.Sprintf("f%d.go", i)}))
		}
		s.Upsert(ctx, "p", recs)
		for _, mode := range []Mode{Vector, Keyword, Hybrid} {
			hits, err := s.Search(ctx, "p", Query{Text: "rate limit tenant requests", Vector: vec("rate limit tenant requests"), K: 3, Mode: mode})
			if err != nil || len(hits) == 0 || hits[0].ID != "2" {
				t.Errorf("%s: %v %+v", mode, err, hits)
			}
		}
		hits, _ := s.Search(ctx, "p", Query{Text: "parse http request", Vector: vec("parse http request"), K: 5, Filter: Filter{Fields: map[string]string{"arch_tag": "b"}}})
		for _, h := range hits {
			if h.Payload["arch_tag"] != "b" {
				t.Errorf("filter ignored: %+v", h)
			}
		}
		if hits, err := s.Search(ctx, "p", Query{Text: "", Vector: vec("x"), K: 3, Mode: Keyword}); err != nil || len(hits) != 0 {
			t.Errorf("empty keyword query: %v %v", hits, err)
		}
		if _, err := s.Search(ctx, "nope", Query{Text: "x", Vector: vec("x"), Mode: Vector}); !errors.Is(err, ErrNoCollection) {
			t.Errorf("unknown collection: %v", err)
		}
	})

	t.Run("keyword search where another collection has the better matches", func(t *testing.T) {
		s := open(t)
		var crowd, few []Record
		for i := range 200 {
			crowd = append(crowd, rec(fmt.Sprintf("c%d", i), "payout payout payout ledger", map[string]string{"k": "v"}))
		}
		for i := range 3 {
			few = append(few, rec(fmt.Sprintf("f%d", i), fmt.Sprintf("one payout among many other words %d", i), map[string]string{"k": fmt.Sprint(i % 2)}))
		}
		for coll, recs := range map[string][]Record{"crowd": crowd, "few": few} {
			if err := s.Ensure(ctx, coll, emb.Model(), emb.Dim()); err != nil {
				t.Fatal(err)
			}
			if err := s.Upsert(ctx, coll, recs); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range []struct {
			f    Filter
			want string
		}{
			{Filter{}, "f0 f1 f2"},
			{Filter{Fields: map[string]string{"k": "0"}}, "f0 f2"},
		} {
			hits, err := s.Search(ctx, "few", Query{Text: "payout", K: 5, Mode: Keyword, Filter: c.f})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, h := range hits {
				ids = append(ids, h.ID)
			}
			slices.Sort(ids)
			if got := strings.Join(ids, " "); got != c.want {
				t.Errorf("filter %v: hits %q, want %q", c.f, got, c.want)
			}
		}
	})

	t.Run("replace", func(t *testing.T) {
		s := open(t)
		s.Ensure(ctx, "p", emb.Model(), emb.Dim())
		old := []Record{
			rec("t1/a", "old alpha", map[string]string{"reference_tag": "t1"}),
			rec("t1/b", "old beta", map[string]string{"reference_tag": "t1"}),
			rec("t2/a", "other tag stays", map[string]string{"reference_tag": "t2"}),
		}
		s.Upsert(ctx, "p", old)
		// A cancelled replace leaves the old set.
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		s.Replace(cctx, "p", "reference_tag", "t1", Records([]Record{rec("t1/x", "new x", map[string]string{"reference_tag": "t1"})}))
		if n, _ := s.Count(ctx, "p", Filter{Fields: map[string]string{"reference_tag": "t1"}}); n != 2 {
			t.Fatalf("after a failed replace: %d records of t1", n)
		}
		nw := []Record{
			rec("t1/c", "new gamma", map[string]string{"reference_tag": "t1"}),
			rec("t1/a", "new alpha", map[string]string{"reference_tag": "t1"}),
		}
		if err := s.Replace(ctx, "p", "reference_tag", "t1", Records(nw)); err != nil {
			t.Fatal(err)
		}
		list, _ := s.List(ctx, "p", Filter{Fields: map[string]string{"reference_tag": "t1"}}, 10)
		if len(list) != 2 {
			t.Fatalf("after replace: %+v", list)
		}
		for _, r := range list {
			if !strings.HasPrefix(r.Text, "new") {
				t.Errorf("old record survived: %+v", r)
			}
		}
		if n, _ := s.Count(ctx, "p", Filter{Fields: map[string]string{"reference_tag": "t2"}}); n != 1 {
			t.Error("replace touched another tag")
		}
		hits, _ := s.Search(ctx, "p", Query{Text: "alpha", Vector: vec("alpha"), K: 5})
		for _, h := range hits {
			if h.Text == "old alpha" {
				t.Error("search still sees the old set")
			}
		}
	})
}

func TestSQLiteStore(t *testing.T) {
	storeSuite(t, func(t *testing.T) Store {
		s, err := OpenSQLite(filepath.Join(t.TempDir(), "memory.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }
