package memory

import (
	"container/heap"
	"context"
	"maps"
	"math"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
)

// keywords is the in-memory keyword index of one collection's live records:
// for each stem, the records holding it and how often, and each record's
// length in stems. It ranks by BM25 with FTS5's constants and formula
// (k1 1.2, b 0.75, idf ln((N−n+½)/(n+½)) clamped to 1e-6), over the
// collection alone — FTS5's statistics were the whole file's, every
// collection and project in it. The stems are the ones FTS5 holds
// (records_fts stays the store's full-text table, which every process
// writes); scoring them here costs a map lookup per query term and a pass
// over its postings, where FTS5, compiled to Go, took most of a hybrid
// search's time at 100,000 records.
//
// Stems are letters and digits only (Terms), so FTS5's tokenizer kept each
// one whole; it also folded diacritics, which this index does not (a query
// for "resume" no longer finds "résumé").
type keywords struct {
	// The stems, sorted, end to end in words (stem j is
	// words[wordOff[j]:wordOff[j+1]]) with each one's term number in
	// termOf: a tenth of a map's memory, and found by binary search.
	words   string
	wordOff []uint32
	termOf  []uint32
	// The postings of term t are docs[off[t]:off[t+1]] (record indexes,
	// ascending) with the stem's count in each, tfs[off[t]:off[t+1]]: one
	// array for all terms, where a slice each cost ten times the memory
	// at 100,000 records (220,000 terms, most in one record).
	off   []uint32
	docs  []uint32
	tfs   []uint8  // counts over 255 are 255: BM25 saturates long before
	dl    []uint32 // stems per record, by record index
	avgdl float64
	acc   sync.Pool // *[]float32 score accumulators, one slot a record
}

// BM25 constants, as FTS5's bm25() without column weights.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// keywordIndex builds ix's keyword index from the stems FTS5 holds for its
// records, once per index (an index is replaced when the file changes).
func (s *SQLite) keywordIndex(ctx context.Context, coll string, ix *index) (*keywords, error) {
	ix.kwMu.Lock()
	defer ix.kwMu.Unlock()
	if ix.kw != nil {
		return ix.kw, nil
	}
	kw, err := s.loadKeywords(ctx, coll, ix)
	if err != nil {
		return nil, err
	}
	ix.kw = kw
	if len(ix.rids) > 10000 {
		debug.FreeOSMemory() // building left garbage the size of the index; give it back now
	}
	return kw, nil
}

func (s *SQLite) loadKeywords(ctx context.Context, coll string, ix *index) (*keywords, error) {
	var kw *keywords
	err := s.retry(ctx, func(ctx context.Context) error {
		kw = &keywords{dl: make([]uint32, len(ix.rids))}
		termIDs := map[string]uint32{}
		// One pass collects (term, record, count) in record order and
		// counts each term's records; a second lays them out by term.
		var tids, docs []uint32
		var tfs []uint8
		var perTerm []uint32
		rows, err := s.db.QueryContext(ctx, `SELECT r.rid, f.terms FROM records r JOIN records_fts f ON f.rowid = r.rid WHERE r.coll = ? AND r.live = 1 ORDER BY r.rid`, coll)
		if err != nil {
			return err
		}
		defer rows.Close()
		// The stems of one record are counted in cnt, by term number; inDoc
		// lists the terms the record has, and last says which record a
		// term was last counted for (+1), so nothing is cleared between
		// records.
		var cnt []uint8
		var last []uint32
		var inDoc []uint32
		for rows.Next() {
			var rid int64
			var terms string
			if err := rows.Scan(&rid, &terms); err != nil {
				return err
			}
			i, ok := slices.BinarySearch(ix.rids, rid)
			if !ok { // written after the vectors were loaded: the next refresh has it
				continue
			}
			inDoc = inDoc[:0]
			n := 0
			for t := range strings.FieldsSeq(terms) {
				id, ok := termIDs[t]
				if !ok {
					id = uint32(len(perTerm))
					termIDs[strings.Clone(t)] = id // not a slice of the row, which it would keep
					perTerm, cnt, last = append(perTerm, 0), append(cnt, 0), append(last, 0)
				}
				if last[id] != uint32(i)+1 {
					last[id], cnt[id] = uint32(i)+1, 0
					inDoc = append(inDoc, id)
				}
				if cnt[id] < math.MaxUint8 {
					cnt[id]++
				}
				n++
			}
			kw.dl[i] = uint32(n)
			for _, id := range inDoc {
				tids = append(tids, id)
				docs = append(docs, uint32(i))
				tfs = append(tfs, cnt[id])
				perTerm[id]++
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		kw.off = make([]uint32, len(perTerm)+1)
		for t, c := range perTerm {
			kw.off[t+1] = kw.off[t] + c
		}
		sorted := slices.Sorted(maps.Keys(termIDs))
		var words strings.Builder
		kw.wordOff, kw.termOf = make([]uint32, 0, len(sorted)+1), make([]uint32, 0, len(sorted))
		for _, t := range sorted {
			kw.wordOff = append(kw.wordOff, uint32(words.Len()))
			kw.termOf = append(kw.termOf, termIDs[t])
			words.WriteString(t)
		}
		kw.wordOff = append(kw.wordOff, uint32(words.Len()))
		kw.words = words.String()
		next := slices.Clone(kw.off[:len(perTerm)])
		kw.docs, kw.tfs = make([]uint32, len(docs)), make([]uint8, len(docs))
		for j, t := range tids { // in record order, so each term's records stay ascending
			kw.docs[next[t]], kw.tfs[next[t]] = docs[j], tfs[j]
			next[t]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var total float64
	for _, d := range kw.dl {
		total += float64(d)
	}
	if len(kw.dl) > 0 {
		kw.avgdl = total / float64(len(kw.dl))
	}
	return kw, nil
}

// term is t's term number.
func (kw *keywords) term(t string) (uint32, bool) {
	n := len(kw.termOf)
	j, ok := sort.Find(n, func(j int) int { return strings.Compare(t, kw.words[kw.wordOff[j]:kw.wordOff[j+1]]) })
	if !ok {
		return 0, false
	}
	return kw.termOf[j], true
}

// df is the number of records holding t.
func (kw *keywords) df(t string) int64 {
	if id, ok := kw.term(t); ok {
		return int64(kw.off[id+1] - kw.off[id])
	}
	return 0
}

// rank returns the n best records for terms (any of them), those failing
// keep left out, by BM25 score, ties by record index.
func (kw *keywords) rank(terms []string, n int, keep func(i int) bool) []scored {
	if n <= 0 || len(kw.dl) == 0 {
		return nil
	}
	N := float64(len(kw.dl))
	acc, _ := kw.acc.Get().(*[]float32)
	if acc == nil {
		a := make([]float32, len(kw.dl))
		acc = &a
	}
	defer kw.acc.Put(acc)
	score := *acc
	var touched []uint32
	for _, t := range terms {
		id, ok := kw.term(t)
		if !ok {
			continue
		}
		docs, tfs := kw.docs[kw.off[id]:kw.off[id+1]], kw.tfs[kw.off[id]:kw.off[id+1]]
		df := float64(len(docs))
		idf := math.Log((N - df + 0.5) / (df + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for j, d := range docs {
			tf := float64(tfs[j])
			norm := bm25K1 * (1 - bm25B + bm25B*float64(kw.dl[d])/kw.avgdl)
			if score[d] == 0 { // every term adds more than zero
				touched = append(touched, d)
			}
			score[d] += float32(idf * tf * (bm25K1 + 1) / (tf + norm))
		}
	}
	h := &topK{}
	for _, d := range touched {
		sc := score[d]
		score[d] = 0
		if keep != nil && !keep(int(d)) {
			continue
		}
		c := scored{int(d), float64(sc)}
		if h.Len() < n {
			heap.Push(h, c)
		} else if better(c, (*h)[0]) {
			(*h)[0] = c
			heap.Fix(h, 0)
		}
	}
	out := make([]scored, h.Len())
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(h).(scored)
	}
	return out
}

// better orders scored results: higher score first, then lower index.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.i < b.i
}

// topK is a min-heap of the best results so far (its root the worst).
type topK []scored

func (h topK) Len() int           { return len(h) }
func (h topK) Less(i, j int) bool { return better(h[j], h[i]) }
func (h topK) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *topK) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *topK) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
