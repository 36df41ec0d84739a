package memory

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Qdrant keeps collections in a Qdrant server (gRPC). Collections are made
// on demand with payload indexes on the filter fields; the embedding model of
// each is kept in the bridle_meta collection. Keyword search is Qdrant's
// full-text filter with term-overlap ranking, fused with vector search.
type Qdrant struct {
	c   *qdrant.Client
	url string
}

const qdrantMeta = "bridle_meta"

// Payload keys Bridle adds to every point.
const (
	qID      = "_id"
	qText    = "_text"
	qTags    = "_tags"
	qCreated = "_created"
	qLive    = "_live"
	qGen     = "_gen"
)

// keywordFields get payload indexes.
var keywordFields = []string{qID, qTags, qGen, "project", "kind", "agent", "session", "reference_tag", "arch_tag", "file_path"}

// OpenQdrant connects to Qdrant at rawURL (http://host:6334, gRPC). It does
// not contact the server until the first call.
func OpenQdrant(rawURL, apiKey string) (*Qdrant, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("%w: QDRANT_URL %q is not host:port (gRPC, e.g. http://127.0.0.1:6334)", ErrInput, rawURL)
	}
	port := 6334
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("%w: QDRANT_URL port %q", ErrInput, p)
		}
	}
	c, err := qdrant.NewClient(&qdrant.Config{Host: u.Hostname(), Port: port, APIKey: apiKey, UseTLS: u.Scheme == "https", SkipCompatibilityCheck: true})
	if err != nil {
		return nil, fmt.Errorf("%w: qdrant at %s: %v", ErrUnavailable, rawURL, err)
	}
	return &Qdrant{c: c, url: rawURL}, nil
}

// Close implements Store.
func (q *Qdrant) Close() error { return q.c.Close() }

func (q *Qdrant) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if s, ok := status.FromError(errors.Unwrap(err)); ok || isStatus(err, &s) {
		switch s.Code() {
		case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
			return fmt.Errorf("%w: qdrant at %s: %s: %s", ErrUnavailable, q.url, op, s.Message())
		case codes.NotFound:
			return fmt.Errorf("qdrant %s: %w: %s", op, ErrNoCollection, s.Message())
		}
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: qdrant at %s: %s: %v", ErrUnavailable, q.url, op, err)
	}
	return fmt.Errorf("qdrant %s: %w", op, err)
}

func isStatus(err error, s **status.Status) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if st, ok := status.FromError(e); ok && st.Code() != codes.Unknown {
			*s = st
			return true
		}
	}
	if st, ok := status.FromError(err); ok {
		*s = st
		return true
	}
	return false
}

func ctxT(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 15*time.Second)
}

// pointID maps a record id to a Qdrant UUID.
func pointID(coll, id string) *qdrant.PointId {
	h := sha1.Sum([]byte(coll + "\x00" + id))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return qdrant.NewIDUUID(x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32])
}

// Ensure implements Store.
func (q *Qdrant) Ensure(ctx context.Context, coll, model string, dim int) error {
	ctx, cancel := ctxT(ctx)
	defer cancel()
	if err := q.ensureMeta(ctx); err != nil {
		return err
	}
	pts, err := q.c.Get(ctx, &qdrant.GetPoints{CollectionName: qdrantMeta, Ids: []*qdrant.PointId{pointID(qdrantMeta, coll)}, WithPayload: qdrant.NewWithPayload(true)})
	if err != nil {
		return q.fail("read collection model", err)
	}
	if len(pts) == 1 {
		m := pts[0].Payload["model"].GetStringValue()
		d := int(pts[0].Payload["dim"].GetIntegerValue())
		if m != model || d != dim {
			return fmt.Errorf("collection %s: %w (%s, %d dimensions; now %s, %d): re-index it", coll, ErrModelMismatch, m, d, model, dim)
		}
		return nil
	}
	exists, err := q.c.CollectionExists(ctx, coll)
	if err != nil {
		return q.fail("check collection", err)
	}
	if !exists {
		if err := q.c.CreateCollection(ctx, &qdrant.CreateCollection{CollectionName: coll,
			VectorsConfig: qdrant.NewVectorsConfig(&qdrant.VectorParams{Size: uint64(dim), Distance: qdrant.Distance_Cosine})}); err != nil {
			return q.fail("create collection "+coll, err)
		}
		for _, f := range keywordFields {
			if _, err := q.c.CreateFieldIndex(ctx, &qdrant.CreateFieldIndexCollection{CollectionName: coll, FieldName: f,
				FieldType: qdrant.FieldType_FieldTypeKeyword.Enum(), Wait: new(true)}); err != nil {
				return q.fail("index "+f, err)
			}
		}
		for f, t := range map[string]qdrant.FieldType{qText: qdrant.FieldType_FieldTypeText, qLive: qdrant.FieldType_FieldTypeBool} {
			if _, err := q.c.CreateFieldIndex(ctx, &qdrant.CreateFieldIndexCollection{CollectionName: coll, FieldName: f, FieldType: t.Enum(), Wait: new(true)}); err != nil {
				return q.fail("index "+f, err)
			}
		}
	}
	_, err = q.c.Upsert(ctx, &qdrant.UpsertPoints{CollectionName: qdrantMeta, Wait: new(true), Points: []*qdrant.PointStruct{{
		Id: pointID(qdrantMeta, coll), Vectors: qdrant.NewVectors(0), Payload: qdrant.NewValueMap(map[string]any{"model": model, "dim": int64(dim)}),
	}}})
	return q.fail("record collection model", err)
}

func (q *Qdrant) ensureMeta(ctx context.Context) error {
	ok, err := q.c.CollectionExists(ctx, qdrantMeta)
	if err != nil {
		return q.fail("check collections", err)
	}
	if ok {
		return nil
	}
	err = q.c.CreateCollection(ctx, &qdrant.CreateCollection{CollectionName: qdrantMeta,
		VectorsConfig: qdrant.NewVectorsConfig(&qdrant.VectorParams{Size: 1, Distance: qdrant.Distance_Dot})})
	return q.fail("create "+qdrantMeta, err)
}

func (q *Qdrant) point(coll string, r Record, live bool, gen string) *qdrant.PointStruct {
	if r.Created.IsZero() {
		r.Created = time.Now()
	}
	p := map[string]any{qID: r.ID, qText: r.Text, qCreated: r.Created.UnixNano(), qLive: live, qGen: gen}
	tags := make([]any, len(r.Tags))
	for i, t := range r.Tags {
		tags[i] = t
	}
	p[qTags] = tags
	for k, v := range r.Payload {
		p[k] = v
	}
	key := r.ID
	if gen != "" {
		key = gen + "/" + r.ID
	}
	return &qdrant.PointStruct{Id: pointID(coll, key), Vectors: qdrant.NewVectors(r.Vector...), Payload: qdrant.NewValueMap(p)}
}

// Upsert implements Store. An id already present is replaced.
func (q *Qdrant) Upsert(ctx context.Context, coll string, recs []Record) error {
	ctx, cancel := ctxT(ctx)
	defer cancel()
	for i := 0; i < len(recs); i += 256 {
		var pts []*qdrant.PointStruct
		for _, r := range recs[i:min(i+256, len(recs))] {
			if _, err := q.c.Delete(ctx, &qdrant.DeletePoints{CollectionName: coll, Wait: new(true),
				Points: qdrant.NewPointsSelectorFilter(&qdrant.Filter{Must: []*qdrant.Condition{qdrant.NewMatchKeyword(qID, r.ID)}})}); err != nil {
				return q.fail("upsert", err)
			}
			pts = append(pts, q.point(coll, r, true, ""))
		}
		if _, err := q.c.Upsert(ctx, &qdrant.UpsertPoints{CollectionName: coll, Wait: new(true), Points: pts}); err != nil {
			return q.fail("upsert", err)
		}
	}
	return nil
}

func (q *Qdrant) filter(f Filter) *qdrant.Filter {
	must := []*qdrant.Condition{qdrant.NewMatchBool(qLive, true)}
	keys := make([]string, 0, len(f.Fields))
	for k := range f.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		must = append(must, qdrant.NewMatchKeyword(k, f.Fields[k]))
	}
	for _, t := range f.Tags {
		must = append(must, qdrant.NewMatchKeyword(qTags, t))
	}
	return &qdrant.Filter{Must: must}
}

func record(p map[string]*qdrant.Value) Record {
	r := Record{ID: p[qID].GetStringValue(), Text: p[qText].GetStringValue(), Payload: map[string]string{},
		Created: time.Unix(0, p[qCreated].GetIntegerValue()).UTC()}
	for _, v := range p[qTags].GetListValue().GetValues() {
		r.Tags = append(r.Tags, v.GetStringValue())
	}
	for k, v := range p {
		if !strings.HasPrefix(k, "_") {
			r.Payload[k] = v.GetStringValue()
		}
	}
	return r
}

// Search implements Store.
func (q *Qdrant) Search(ctx context.Context, coll string, qq Query) ([]Hit, error) {
	ctx, cancel := ctxT(ctx)
	defer cancel()
	if qq.K <= 0 {
		qq.K = 10
	}
	if qq.Mode == "" {
		qq.Mode = Hybrid
	}
	n := qq.K
	if qq.Mode == Hybrid {
		n = hybridDepth(qq.K)
	}
	var vec, kw []Hit
	if qq.Mode != Keyword {
		res, err := q.c.Query(ctx, &qdrant.QueryPoints{CollectionName: coll, Query: qdrant.NewQueryDense(qq.Vector),
			Filter: q.filter(qq.Filter), Limit: new(uint64(n)), WithPayload: qdrant.NewWithPayload(true)})
		if err != nil {
			return nil, q.fail("search", err)
		}
		for _, p := range res {
			vec = append(vec, Hit{Record: record(p.Payload), Score: float64(p.Score)})
		}
	}
	if qq.Mode != Vector {
		terms := slices.Compact(slices.Sorted(slices.Values(Terms(qq.Text))))
		if len(terms) > 0 {
			f := q.filter(qq.Filter)
			for _, t := range terms {
				f.Should = append(f.Should, qdrant.NewMatchText(qText, t))
				if st := stem(t); st != t {
					f.Should = append(f.Should, qdrant.NewMatchText(qText, st))
				}
			}
			pts, err := q.c.Scroll(ctx, &qdrant.ScrollPoints{CollectionName: coll, Filter: f, Limit: new(uint32(500)), WithPayload: qdrant.NewWithPayload(true)})
			if err != nil {
				return nil, q.fail("keyword search", err)
			}
			for _, p := range pts {
				r := record(p.Payload)
				kw = append(kw, Hit{Record: r, Score: overlap(Stems(qq.Text), r.Text)})
			}
			slices.SortStableFunc(kw, func(a, b Hit) int {
				if a.Score != b.Score {
					if a.Score > b.Score {
						return -1
					}
					return 1
				}
				return strings.Compare(a.ID, b.ID)
			})
			if len(kw) > n {
				kw = kw[:n]
			}
		}
	}
	switch qq.Mode {
	case Vector:
		return vec, nil
	case Keyword:
		if len(kw) > qq.K {
			kw = kw[:qq.K]
		}
		return kw, nil
	}
	return fuse(vec, kw, qq.K), nil
}

// overlap scores a text by the query terms it holds, rarer matches counting
// as much as frequent ones (log-scaled term frequency).
func overlap(terms []string, text string) float64 {
	counts := map[string]int{}
	for _, t := range Stems(text) {
		counts[t]++
	}
	var s float64
	for _, t := range terms {
		if c := counts[t]; c > 0 {
			s += 1 + logf(float64(c))
		}
	}
	return s
}

func logf(x float64) float64 {
	n := 0.0
	for x >= 2 {
		x /= 2
		n += 0.69
	}
	return n
}

func (q *Qdrant) scroll(ctx context.Context, coll string, f *qdrant.Filter, limit uint32) ([]Record, error) {
	pts, err := q.c.Scroll(ctx, &qdrant.ScrollPoints{CollectionName: coll, Filter: f, Limit: new(limit), WithPayload: qdrant.NewWithPayload(true)})
	if err != nil {
		return nil, q.fail("scroll", err)
	}
	out := make([]Record, 0, len(pts))
	for _, p := range pts {
		out = append(out, record(p.Payload))
	}
	return out, nil
}

// Get implements Store.
func (q *Qdrant) Get(ctx context.Context, coll, id string) (Record, error) {
	ctx, cancel := ctxT(ctx)
	defer cancel()
	f := q.filter(Filter{})
	f.Must = append(f.Must, qdrant.NewMatchKeyword(qID, id))
	rs, err := q.scroll(ctx, coll, f, 1)
	if err != nil {
		return Record{}, err
	}
	if len(rs) == 0 {
		return Record{}, fmt.Errorf("%s %q: %w", coll, id, ErrNotFound)
	}
	return rs[0], nil
}

// List implements Store: newest first.
func (q *Qdrant) List(ctx context.Context, coll string, f Filter, limit int) ([]Record, error) {
	ctx, cancel := ctxT(ctx)
	defer cancel()
	if limit <= 0 {
		limit = 100
	}
	rs, err := q.scroll(ctx, coll, q.filter(f), 10000)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(rs, func(a, b Record) int { return b.Created.Compare(a.Created) })
	if len(rs) > limit {
		rs = rs[:limit]
	}
	return rs, nil
}

// Count implements Store.
func (q *Qdrant) Count(ctx context.Context, coll string, f Filter) (int, error) {
	ctx, cancel := ctxT(ctx)
	defer cancel()
	n, err := q.c.Count(ctx, &qdrant.CountPoints{CollectionName: coll, Filter: q.filter(f), Exact: new(true)})
	return int(n), q.fail("count", err)
}

// Delete implements Store.
func (q *Qdrant) Delete(ctx context.Context, coll string, f Filter) (int, error) {
	n, err := q.Count(ctx, coll, f)
	if err != nil {
		return 0, err
	}
	ctx, cancel := ctxT(ctx)
	defer cancel()
	_, err = q.c.Delete(ctx, &qdrant.DeletePoints{CollectionName: coll, Wait: new(true), Points: qdrant.NewPointsSelectorFilter(q.filter(f))})
	return n, q.fail("delete", err)
}

// DeleteID implements Store.
func (q *Qdrant) DeleteID(ctx context.Context, coll, id string) error {
	if _, err := q.Get(ctx, coll, id); err != nil {
		return err
	}
	ctx, cancel := ctxT(ctx)
	defer cancel()
	_, err := q.c.Delete(ctx, &qdrant.DeletePoints{CollectionName: coll, Wait: new(true),
		Points: qdrant.NewPointsSelectorFilter(&qdrant.Filter{Must: []*qdrant.Condition{qdrant.NewMatchKeyword(qID, id)}})})
	return q.fail("delete", err)
}

// Replace implements Store: the new set is written hidden under a new
// generation, made visible, and only then is the old set deleted. Qdrant has
// no transactions, so for a moment both sets may answer; never neither.
func (q *Qdrant) Replace(ctx context.Context, coll, field, value string, recs iter.Seq2[Record, error]) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	b := make([]byte, 6)
	rand.Read(b)
	gen := "g" + hex.EncodeToString(b)
	hiddenOld := &qdrant.Filter{Must: []*qdrant.Condition{qdrant.NewMatchKeyword(field, value), qdrant.NewMatchBool(qLive, false)}}
	if _, err := q.c.Delete(ctx, &qdrant.DeletePoints{CollectionName: coll, Wait: new(true), Points: qdrant.NewPointsSelectorFilter(hiddenOld)}); err != nil {
		return q.fail("replace: clean up", err)
	}
	err := batches(recs, 256, func(batch []Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		pts := make([]*qdrant.PointStruct, 0, len(batch))
		for _, r := range batch {
			pts = append(pts, q.point(coll, r, false, gen))
		}
		if _, err := q.c.Upsert(ctx, &qdrant.UpsertPoints{CollectionName: coll, Wait: new(true), Points: pts}); err != nil {
			return q.fail("replace: write", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	newSet := &qdrant.Filter{Must: []*qdrant.Condition{qdrant.NewMatchKeyword(field, value), qdrant.NewMatchKeyword(qGen, gen)}}
	if _, err := q.c.SetPayload(ctx, &qdrant.SetPayloadPoints{CollectionName: coll, Wait: new(true),
		Payload: qdrant.NewValueMap(map[string]any{qLive: true}), PointsSelector: qdrant.NewPointsSelectorFilter(newSet)}); err != nil {
		return q.fail("replace: publish", err)
	}
	oldSet := &qdrant.Filter{Must: []*qdrant.Condition{qdrant.NewMatchKeyword(field, value)}, MustNot: []*qdrant.Condition{qdrant.NewMatchKeyword(qGen, gen)}}
	_, err = q.c.Delete(ctx, &qdrant.DeletePoints{CollectionName: coll, Wait: new(true), Points: qdrant.NewPointsSelectorFilter(oldSet)})
	return q.fail("replace: retire the old set", err)
}
