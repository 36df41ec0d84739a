package memory

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkVectorScan: one query against an in-memory index of 100,000
// random 384-dimension records (the scan and rescoring alone, no store).
func BenchmarkVectorScan(b *testing.B) {
	const n, dim = 100_000, 384
	r := rand.New(rand.NewPCG(1, 2))
	ix := &index{dim: dim, words: (dim + 63) / 64}
	vec := make([]float32, dim)
	for i := range n {
		for j := range vec {
			vec[j] = float32(r.NormFloat64())
		}
		q, sc := decodeVec(encodeVec(vec))
		ix.add(int64(i), "", q, sc, "\x00")
	}
	for j := range vec {
		vec[j] = float32(r.NormFloat64())
	}
	for b.Loop() {
		ix.search(vec, 40, Filter{})
	}
}
