package memory

import (
	"context"
	"fmt"
	"math"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// fakeQdrant is a FAKE Qdrant: an in-process gRPC server built from the
// go-client's own generated service interfaces, implementing the calls
// Bridle makes (collections, upsert, delete, get, set payload, query, scroll,
// count, field indexes) with Qdrant's filter semantics for keyword, text and
// bool matches. Qdrant itself cannot run on this machine.
type fakeQdrant struct {
	mu    sync.Mutex
	colls map[string]*fakeColl
	down  bool // answer Unavailable, like a server that went away
}

// The two services share one state; their method names overlap (Get,
// Delete), hence two types.
type fakeCollections struct {
	qdrant.UnimplementedCollectionsServer
	f *fakeQdrant
}

type fakePoints struct {
	qdrant.UnimplementedPointsServer
	f *fakeQdrant
}

type fakeColl struct {
	dim    int
	points map[string]*qdrant.PointStruct // by uuid
	order  []string
}

func startFakeQdrant(t *testing.T) (*fakeQdrant, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeQdrant{colls: map[string]*fakeColl{}}
	s := grpc.NewServer()
	qdrant.RegisterCollectionsServer(s, fakeCollections{f: f})
	qdrant.RegisterPointsServer(s, fakePoints{f: f})
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return f, "http://" + l.Addr().String()
}

// enter locks the fake and finds the collection, answering like Qdrant when
// the server is down or the collection does not exist.
func (f *fakeQdrant) enter(name string) (*fakeColl, func(), error) {
	f.mu.Lock()
	if err := f.check(); err != nil {
		f.mu.Unlock()
		return nil, nil, err
	}
	c, err := f.coll(name)
	if err != nil {
		f.mu.Unlock()
		return nil, nil, err
	}
	return c, f.mu.Unlock, nil
}

func (f *fakeQdrant) check() error {
	if f.down {
		return status.Error(codes.Unavailable, "fake qdrant is down")
	}
	return nil
}

func (f *fakeQdrant) coll(name string) (*fakeColl, error) {
	c, ok := f.colls[name]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "Collection `%s` doesn't exist!", name)
	}
	return c, nil
}

func (x fakeCollections) CollectionExists(_ context.Context, r *qdrant.CollectionExistsRequest) (*qdrant.CollectionExistsResponse, error) {
	f := x.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(); err != nil {
		return nil, err
	}
	_, ok := f.colls[r.CollectionName]
	return &qdrant.CollectionExistsResponse{Result: &qdrant.CollectionExists{Exists: ok}}, nil
}

func (x fakeCollections) Create(_ context.Context, r *qdrant.CreateCollection) (*qdrant.CollectionOperationResponse, error) {
	f := x.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(); err != nil {
		return nil, err
	}
	if _, ok := f.colls[r.CollectionName]; ok {
		return nil, status.Errorf(codes.AlreadyExists, "Collection `%s` already exists!", r.CollectionName)
	}
	f.colls[r.CollectionName] = &fakeColl{dim: int(r.VectorsConfig.GetParams().GetSize()), points: map[string]*qdrant.PointStruct{}}
	return &qdrant.CollectionOperationResponse{Result: true}, nil
}

func (x fakePoints) CreateFieldIndex(_ context.Context, r *qdrant.CreateFieldIndexCollection) (*qdrant.PointsOperationResponse, error) {
	f := x.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.coll(r.CollectionName); err != nil {
		return nil, err
	}
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{Status: qdrant.UpdateStatus_Completed}}, nil
}

func ok() *qdrant.PointsOperationResponse {
	return &qdrant.PointsOperationResponse{Result: &qdrant.UpdateResult{Status: qdrant.UpdateStatus_Completed}}
}

func (x fakePoints) Upsert(_ context.Context, r *qdrant.UpsertPoints) (*qdrant.PointsOperationResponse, error) {
	f := x.f
	c, unlock, err := f.enter(r.CollectionName)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, p := range r.Points {
		if v := p.Vectors.GetVector().GetDense().GetData(); len(v) != c.dim {
			return nil, status.Errorf(codes.InvalidArgument, "Wrong input: Vector dimension error: expected dim: %d, got %d", c.dim, len(v))
		}
		id := p.Id.GetUuid()
		if _, exists := c.points[id]; !exists {
			c.order = append(c.order, id)
		}
		c.points[id] = p
	}
	return ok(), nil
}

func (f *fakeQdrant) selected(c *fakeColl, sel *qdrant.PointsSelector) []string {
	var out []string
	if ids := sel.GetPoints(); ids != nil {
		for _, id := range ids.Ids {
			if _, ok := c.points[id.GetUuid()]; ok {
				out = append(out, id.GetUuid())
			}
		}
		return out
	}
	for _, id := range c.order {
		if p, ok := c.points[id]; ok && matches(sel.GetFilter(), p.Payload) {
			out = append(out, id)
		}
	}
	return out
}

func (x fakePoints) Delete(_ context.Context, r *qdrant.DeletePoints) (*qdrant.PointsOperationResponse, error) {
	f := x.f
	c, unlock, err := f.enter(r.CollectionName)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, id := range f.selected(c, r.Points) {
		delete(c.points, id)
	}
	c.order = slices.DeleteFunc(c.order, func(id string) bool { _, ok := c.points[id]; return !ok })
	return ok(), nil
}

func (x fakePoints) SetPayload(_ context.Context, r *qdrant.SetPayloadPoints) (*qdrant.PointsOperationResponse, error) {
	f := x.f
	c, unlock, err := f.enter(r.CollectionName)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, id := range f.selected(c, r.PointsSelector) {
		for k, v := range r.Payload {
			c.points[id].Payload[k] = v
		}
	}
	return ok(), nil
}

func retrieved(p *qdrant.PointStruct) *qdrant.RetrievedPoint {
	return &qdrant.RetrievedPoint{Id: p.Id, Payload: p.Payload}
}

func (x fakePoints) Get(_ context.Context, r *qdrant.GetPoints) (*qdrant.GetResponse, error) {
	f := x.f
	c, unlock, err := f.enter(r.CollectionName)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []*qdrant.RetrievedPoint
	for _, id := range r.Ids {
		if p, ok := c.points[id.GetUuid()]; ok {
			out = append(out, retrieved(p))
		}
	}
	return &qdrant.GetResponse{Result: out}, nil
}

func (x fakePoints) Scroll(_ context.Context, r *qdrant.ScrollPoints) (*qdrant.ScrollResponse, error) {
	f := x.f
	c, unlock, err := f.enter(r.CollectionName)
	if err != nil {
		return nil, err
	}
	defer unlock()
	limit := int(r.GetLimit())
	if limit == 0 {
		limit = 10
	}
	var out []*qdrant.RetrievedPoint
	for _, id := range c.order {
		if p := c.points[id]; matches(r.Filter, p.Payload) {
			out = append(out, retrieved(p))
			if len(out) == limit {
				break
			}
		}
	}
	return &qdrant.ScrollResponse{Result: out}, nil
}

func (x fakePoints) Count(_ context.Context, r *qdrant.CountPoints) (*qdrant.CountResponse, error) {
	f := x.f
	c, unlock, err := f.enter(r.CollectionName)
	if err != nil {
		return nil, err
	}
	defer unlock()
	n := 0
	for _, p := range c.points {
		if matches(r.Filter, p.Payload) {
			n++
		}
	}
	return &qdrant.CountResponse{Result: &qdrant.CountResult{Count: uint64(n)}}, nil
}

func (x fakePoints) Query(_ context.Context, r *qdrant.QueryPoints) (*qdrant.QueryResponse, error) {
	f := x.f
	c, unlock, err := f.enter(r.CollectionName)
	if err != nil {
		return nil, err
	}
	defer unlock()
	q := r.Query.GetNearest().GetDense().GetData()
	if len(q) != c.dim {
		return nil, status.Errorf(codes.InvalidArgument, "Wrong input: Vector dimension error: expected dim: %d, got %d", c.dim, len(q))
	}
	var out []*qdrant.ScoredPoint
	for _, id := range c.order {
		p := c.points[id]
		if !matches(r.Filter, p.Payload) {
			continue
		}
		out = append(out, &qdrant.ScoredPoint{Id: p.Id, Payload: p.Payload, Score: cosine(q, p.Vectors.GetVector().GetDense().GetData())})
	}
	slices.SortStableFunc(out, func(a, b *qdrant.ScoredPoint) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	if l := int(r.GetLimit()); l > 0 && len(out) > l {
		out = out[:l]
	}
	return &qdrant.QueryResponse{Result: out}, nil
}

func cosine(a, b []float32) float32 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(na*nb))
}

// matches evaluates a Qdrant filter against a payload, as Qdrant does for
// the conditions Bridle uses.
func matches(f *qdrant.Filter, p map[string]*qdrant.Value) bool {
	if f == nil {
		return true
	}
	for _, c := range f.Must {
		if !cond(c, p) {
			return false
		}
	}
	for _, c := range f.MustNot {
		if cond(c, p) {
			return false
		}
	}
	if len(f.Should) > 0 {
		any := false
		for _, c := range f.Should {
			any = any || cond(c, p)
		}
		if !any {
			return false
		}
	}
	return true
}

func cond(c *qdrant.Condition, p map[string]*qdrant.Value) bool {
	if sub := c.GetFilter(); sub != nil {
		return matches(sub, p)
	}
	fc := c.GetField()
	if fc == nil {
		panic(fmt.Sprintf("fake qdrant: unsupported condition %v", c))
	}
	v := p[fc.Key]
	m := fc.Match
	switch {
	case m.GetKeyword() != "":
		if l := v.GetListValue(); l != nil {
			for _, x := range l.Values {
				if x.GetStringValue() == m.GetKeyword() {
					return true
				}
			}
			return false
		}
		return v.GetStringValue() == m.GetKeyword()
	case m.GetText() != "":
		words := append(Terms(v.GetStringValue()), Stems(v.GetStringValue())...)
		for _, w := range strings.Fields(strings.ToLower(m.GetText())) {
			if !slices.Contains(words, w) {
				return false
			}
		}
		return true
	default:
		if b, ok := m.MatchValue.(*qdrant.Match_Boolean); ok {
			return v != nil && v.GetBoolValue() == b.Boolean
		}
	}
	panic(fmt.Sprintf("fake qdrant: unsupported match %v", m))
}

func TestQdrantStoreAgainstFake(t *testing.T) {
	storeSuite(t, func(t *testing.T) Store {
		_, addr := startFakeQdrant(t)
		s, err := OpenQdrant(addr, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestQdrantDownIsAClearError(t *testing.T) {
	f, addr := startFakeQdrant(t)
	s, _ := OpenQdrant(addr, "")
	defer s.Close()
	f.down = true
	err := s.Ensure(context.Background(), "c", "m", 8)
	if err == nil || !strings.Contains(err.Error(), "qdrant at "+addr) || !errorsIs(err, ErrUnavailable) {
		t.Errorf("err = %v", err)
	}
}
