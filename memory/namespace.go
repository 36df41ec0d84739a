package memory

import (
	"context"
	"iter"
)

// Namespaced is s with every collection name prefixed by ns: one store (a
// Qdrant server) holds several projects' collections, and no query of one
// reaches another's.
func Namespaced(s Store, ns string) Store { return namespaced{s: s, ns: ns} }

type namespaced struct {
	s  Store
	ns string
}

func (n namespaced) Ensure(ctx context.Context, coll, model string, dim int) error {
	return n.s.Ensure(ctx, n.ns+coll, model, dim)
}
func (n namespaced) Upsert(ctx context.Context, coll string, recs []Record) error {
	return n.s.Upsert(ctx, n.ns+coll, recs)
}
func (n namespaced) Search(ctx context.Context, coll string, q Query) ([]Hit, error) {
	return n.s.Search(ctx, n.ns+coll, q)
}
func (n namespaced) Get(ctx context.Context, coll, id string) (Record, error) {
	return n.s.Get(ctx, n.ns+coll, id)
}
func (n namespaced) List(ctx context.Context, coll string, f Filter, limit int) ([]Record, error) {
	return n.s.List(ctx, n.ns+coll, f, limit)
}
func (n namespaced) Count(ctx context.Context, coll string, f Filter) (int, error) {
	return n.s.Count(ctx, n.ns+coll, f)
}
func (n namespaced) Delete(ctx context.Context, coll string, f Filter) (int, error) {
	return n.s.Delete(ctx, n.ns+coll, f)
}
func (n namespaced) DeleteID(ctx context.Context, coll, id string) error {
	return n.s.DeleteID(ctx, n.ns+coll, id)
}
func (n namespaced) Replace(ctx context.Context, coll, field, value string, recs iter.Seq2[Record, error]) error {
	return n.s.Replace(ctx, n.ns+coll, field, value, recs)
}
func (n namespaced) Close() error { return n.s.Close() }
