package memory

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestKeywordScoresAreFTS5s: with one collection in the file (so that
// FTS5's statistics are the collection's), the in-memory index scores every
// matching record as FTS5's bm25() does and ranks them in the same order;
// a dead record, a filter and a write after the index was built are
// honoured.
func TestKeywordScoresAreFTS5s(t *testing.T) {
	ctx := context.Background()
	s, err := OpenSQLite(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const coll = "c"
	if err := s.Ensure(ctx, coll, "m", 4); err != nil {
		t.Fatal(err)
	}
	words := []string{"gateway", "token", "bearer", "proposal", "merge", "branch", "vault", "secret", "rotate", "audit", "session", "agent"}
	var recs []Record
	for i := range 60 {
		var b strings.Builder
		for j := range 3 + i%9 { // lengths vary, so BM25's length normalisation matters
			b.WriteString(words[(i*7+j*j+j)%len(words)] + " ")
		}
		if i%5 == 0 {
			b.WriteString("token token token ") // term frequency matters
		}
		kind := "even"
		if i%2 == 1 {
			kind = "odd"
		}
		recs = append(recs, Record{ID: fmt.Sprintf("r%02d", i), Text: b.String(), Payload: map[string]string{"kind": kind}, Vector: []float32{1, 0, 0, float32(i)}})
	}
	if err := s.Upsert(ctx, coll, recs); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteID(ctx, coll, "r05"); err != nil {
		t.Fatal(err)
	}
	fts := func(words []string) map[string]float64 {
		terms := Stems(strings.Join(words, " "))
		quoted := make([]string, len(terms))
		for i, q := range terms {
			quoted[i] = `"` + q + `"`
		}
		rows, err := s.db.QueryContext(ctx, `SELECT r.id, bm25(records_fts) FROM records_fts JOIN records r ON r.rid = records_fts.rowid WHERE records_fts MATCH ? AND r.live = 1`, strings.Join(quoted, " OR "))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]float64{}
		for rows.Next() {
			var id string
			var rank float64
			if err := rows.Scan(&id, &rank); err != nil {
				t.Fatal(err)
			}
			out[id] = -rank
		}
		return out
	}
	for _, q := range [][]string{{"token"}, {"vault", "rotate"}, {"bearer", "merge", "audit"}, {"nowhere"}, {"session", "nowhere"}} {
		want := fts(q)
		for _, filter := range []Filter{{}, {Fields: map[string]string{"kind": "odd"}}} {
			hits, err := s.Search(ctx, coll, Query{Text: strings.Join(q, " "), Mode: Keyword, K: 100, Filter: filter})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for id := range want {
				if filter.Fields == nil || (id[len(id)-1]-'0')%2 == 1 {
					n++
				}
			}
			if len(hits) != n {
				t.Fatalf("%v %v: %d hits, FTS5 has %d matches", q, filter, len(hits), n)
			}
			for i, h := range hits {
				if h.ID == "r05" {
					t.Fatalf("%v: the deleted record matched", q)
				}
				if math.Abs(h.Score-want[h.ID]) > 1e-5*math.Max(1, want[h.ID]) {
					t.Errorf("%v: %s scored %.6f, FTS5 %.6f", q, h.ID, h.Score, want[h.ID])
				}
				if i > 0 && (hits[i-1].Score < h.Score || hits[i-1].Score == h.Score && hits[i-1].ID > h.ID) {
					t.Errorf("%v: %s ranked after %s", q, hits[i-1].ID, h.ID)
				}
				if filter.Fields != nil && h.Payload["kind"] != "odd" {
					t.Errorf("%v: %s passed the filter", q, h.ID)
				}
			}
		}
	}
	// A write after the index was built is found by the next search.
	if err := s.Upsert(ctx, coll, []Record{{ID: "late", Text: "zeppelin", Vector: []float32{0, 1, 0, 0}}}); err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(ctx, coll, Query{Text: "zeppelin", Mode: Keyword, K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Collect(func(yield func(string) bool) {
		for _, h := range hits {
			if !yield(h.ID) {
				return
			}
		}
	}); !slices.Equal(got, []string{"late"}) {
		t.Fatalf("after a write: %v", got)
	}
}

// TestKeywordRankTies: equal scores go by record order, and k bounds the
// result.
func TestKeywordRankTies(t *testing.T) {
	kw := &keywords{words: "ab", wordOff: []uint32{0, 1, 2}, termOf: []uint32{0, 1},
		off: []uint32{0, 3, 4}, docs: []uint32{0, 1, 2, 2}, tfs: []uint8{1, 1, 1, 1}, dl: []uint32{1, 1, 2}, avgdl: 4.0 / 3}
	got := kw.rank([]string{"a"}, 2, nil)
	if len(got) != 2 || got[0].i != 0 || got[1].i != 1 {
		t.Fatalf("rank = %+v, want records 0 then 1", got)
	}
	if got := kw.rank([]string{"a", "b"}, 5, func(i int) bool { return i != 0 }); len(got) != 2 || got[0].i != 2 {
		t.Fatalf("rank with keep = %+v, want record 2 first (two terms), no record 0", got)
	}
	if got := kw.rank([]string{"zz"}, 5, nil); len(got) != 0 {
		t.Fatalf("an unknown term matched %+v", got)
	}
}

// TestRefreshPerCollection: a write to one collection, from this process or
// another, rebuilds that collection's indexes and keeps the others'; a
// write by a Bridle that counted only the file's generation rebuilds all.
func TestRefreshPerCollection(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.db")
	a, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := OpenSQLite(path) // another process on the same file
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, c := range []string{"memories", "patterns"} {
		if err := a.Ensure(ctx, c, "m", 2); err != nil {
			t.Fatal(err)
		}
		if err := a.Upsert(ctx, c, []Record{{ID: "x", Text: "first", Vector: []float32{1, 0}}}); err != nil {
			t.Fatal(err)
		}
	}
	get := func(c string) *index {
		t.Helper()
		ix, err := a.refresh(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	mem, pat := get("memories"), get("patterns")
	if err := b.Upsert(ctx, "memories", []Record{{ID: "y", Text: "second", Vector: []float32{0, 1}}}); err != nil {
		t.Fatal(err)
	}
	if get("patterns") != pat {
		t.Error("a write to memories rebuilt the patterns index")
	}
	if m := get("memories"); m == mem || len(m.ids) != 2 {
		t.Errorf("the memories index after another process's write: rebuilt %v, %d records", m != mem, len(m.ids))
	}
	if err := a.DeleteID(ctx, "patterns", "x"); err != nil {
		t.Fatal(err)
	}
	if p := get("patterns"); p == pat || len(p.ids) != 0 {
		t.Errorf("the patterns index after a delete: rebuilt %v, %d records", p != pat, len(p.ids))
	}
	mem, pat = get("memories"), get("patterns")
	if _, err := b.db.ExecContext(ctx, `UPDATE meta SET v = v + 1 WHERE k = 'gen'`); err != nil { // an older Bridle's write
		t.Fatal(err)
	}
	if get("memories") == mem || get("patterns") == pat {
		t.Error("a write that named no collection did not rebuild every index")
	}
}
