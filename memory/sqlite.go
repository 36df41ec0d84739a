package memory

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLite is the embedded store: one file, shared by every bridle process on
// the machine. Writes are transactions in WAL mode behind a busy timeout and
// retries; FTS5 holds each record's stems. Searches run on in-memory
// indexes kept in step with the file: vectors as 1-bit codes scanned with
// popcount, the best candidates rescored on int8 vectors; keywords ranked by
// BM25 over the stems (keywords, built on a collection's first keyword
// search).
type SQLite struct {
	db   *sql.DB
	path string
	mu   sync.Mutex
	idx  map[string]*index // per collection
	seen int64             // the file's writes that named no collection, as the indexes reflect them
}

// OpenSQLite opens (creating) the store at path.
func OpenSQLite(path string) (*SQLite, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open memory store: %w", err)
	}
	dsn := "file:" + path + "?_pragma=busy_timeout(15000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open memory store %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	s := &SQLite{db: db, path: path, idx: map[string]*index{}, seen: -1}
	if err := s.retry(context.Background(), s.migrate); err != nil {
		db.Close()
		return nil, fmt.Errorf("open memory store %s: %w", path, err)
	}
	return s, nil
}

const schemaSQL = `
CREATE TABLE IF NOT EXISTS collections(name TEXT PRIMARY KEY, model TEXT NOT NULL, dim INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS records(
  rid INTEGER PRIMARY KEY AUTOINCREMENT,
  coll TEXT NOT NULL, id TEXT NOT NULL, live INTEGER NOT NULL DEFAULT 1,
  text TEXT NOT NULL, payload TEXT NOT NULL, tags TEXT NOT NULL, vec BLOB NOT NULL, created INTEGER NOT NULL,
  UNIQUE(coll, id));
CREATE INDEX IF NOT EXISTS records_coll ON records(coll, live);
-- Browsing newest first reads this index in order and stops at the limit.
CREATE INDEX IF NOT EXISTS records_recent ON records(coll, live, created);
CREATE VIRTUAL TABLE IF NOT EXISTS records_fts USING fts5(terms, tokenize='unicode61');
CREATE VIRTUAL TABLE IF NOT EXISTS records_vocab USING fts5vocab(records_fts, 'row');
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v INTEGER NOT NULL);
INSERT OR IGNORE INTO meta(k, v) VALUES ('gen', 0);
INSERT OR IGNORE INTO meta(k, v) SELECT 'tracked', v FROM meta WHERE k = 'gen';
`

func (s *SQLite) migrate(ctx context.Context) error {
	_, err := s.db.ExecContext(ctx, schemaSQL)
	return err
}

// busy reports SQLite's "database is locked/busy" answers, by the driver's
// result code (the primary code: SQLITE_BUSY_SNAPSHOT and the like count).
func busy(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
	}
	return false
}

// retry runs f until it does not fail with a busy database (the busy
// timeout usually absorbs contention; this covers the rest), so that "database
// is locked" never reaches a user.
func (s *SQLite) retry(ctx context.Context, f func(context.Context) error) error {
	var err error
	for i := 0; i < 50; i++ {
		if err = f(ctx); !busy(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(10+i*10) * time.Millisecond):
		}
	}
	return fmt.Errorf("memory store busy for too long: %w", err)
}

// tx runs f in a write transaction on coll, and counts the write in the
// file's generations (refresh): the file's ('gen'), the collection's
// ('gen:COLL'), and the writes that say their collection ('tracked'). A
// Bridle from before the collection generations counted only 'gen'.
func (s *SQLite) tx(ctx context.Context, coll string, f func(*sql.Tx) error) error {
	return s.retry(ctx, func(ctx context.Context) error {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := f(tx); err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE meta SET v = v + 1 WHERE k IN ('gen', 'tracked')`); err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(k, v) VALUES (?, 1) ON CONFLICT(k) DO UPDATE SET v = v + 1`, "gen:"+coll); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// Close implements Store.
func (s *SQLite) Close() error { return s.db.Close() }

// Ensure implements Store.
func (s *SQLite) Ensure(ctx context.Context, coll, model string, dim int) error {
	var m string
	var d int
	err := s.retry(ctx, func(ctx context.Context) error {
		err := s.db.QueryRowContext(ctx, `SELECT model, dim FROM collections WHERE name = ?`, coll).Scan(&m, &d)
		if errors.Is(err, sql.ErrNoRows) {
			m, d = model, dim
			_, err = s.db.ExecContext(ctx, `INSERT OR IGNORE INTO collections(name, model, dim) VALUES (?, ?, ?)`, coll, model, dim)
			if err == nil {
				err = s.db.QueryRowContext(ctx, `SELECT model, dim FROM collections WHERE name = ?`, coll).Scan(&m, &d)
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("memory store: %w", err)
	}
	if m != model || d != dim {
		return fmt.Errorf("collection %s: %w (%s, %d dimensions; now %s, %d): re-index it (bridle patterns index, or bridle memory purge)",
			coll, ErrModelMismatch, m, d, model, dim)
	}
	return nil
}

func encodeVec(v []float32) []byte {
	var maxAbs float32
	for _, x := range v {
		maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
	}
	scale := maxAbs / 127
	b := make([]byte, 4+len(v))
	binary.LittleEndian.PutUint32(b, math.Float32bits(scale))
	for i, x := range v {
		if scale > 0 {
			b[4+i] = byte(int8(math.Round(float64(x / scale))))
		}
	}
	return b
}

func decodeVec(b []byte) (q []int8, scale float32) {
	if len(b) < 4 {
		return nil, 0
	}
	scale = math.Float32frombits(binary.LittleEndian.Uint32(b))
	q = make([]int8, len(b)-4)
	for i, c := range b[4:] {
		q[i] = int8(c)
	}
	return q, scale
}

func tagsField(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return "," + strings.Join(tags, ",") + ","
}

func parseTags(s string) []string {
	s = strings.Trim(s, ",")
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// inserter writes records in one transaction through statements prepared
// once for it: parsing each statement again for every record took a tenth
// of indexing.
type inserter struct {
	find, dropFTS, drop, add, addFTS *sql.Stmt
}

func prepareInserter(ctx context.Context, tx *sql.Tx) (*inserter, error) {
	var in inserter
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&in.find, `SELECT rid FROM records WHERE coll = ? AND id = ?`},
		{&in.dropFTS, `DELETE FROM records_fts WHERE rowid = ?`},
		{&in.drop, `DELETE FROM records WHERE rid = ?`},
		{&in.add, `INSERT INTO records(coll, id, live, text, payload, tags, vec, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`},
		{&in.addFTS, `INSERT INTO records_fts(rowid, terms) VALUES (?, ?)`},
	} {
		st, err := tx.PrepareContext(ctx, p.sql)
		if err != nil {
			in.close()
			return nil, err
		}
		*p.st = st
	}
	return &in, nil
}

func (in *inserter) close() {
	for _, st := range []*sql.Stmt{in.find, in.dropFTS, in.drop, in.add, in.addFTS} {
		if st != nil {
			st.Close()
		}
	}
}

// insertAll writes recs in tx, each replacing the record of its id.
func (s *SQLite) insertAll(ctx context.Context, tx *sql.Tx, coll string, recs []Record, live int) error {
	in, err := prepareInserter(ctx, tx)
	if err != nil {
		return err
	}
	defer in.close()
	for _, r := range recs {
		if err := in.insert(ctx, coll, r, live); err != nil {
			return err
		}
	}
	return nil
}

func (in *inserter) insert(ctx context.Context, coll string, r Record, live int) error {
	if r.Created.IsZero() {
		r.Created = time.Now()
	}
	payload, _ := json.Marshal(r.Payload)
	var old int64
	err := in.find.QueryRowContext(ctx, coll, r.ID).Scan(&old)
	if err == nil {
		if _, err := in.dropFTS.ExecContext(ctx, old); err != nil {
			return err
		}
		if _, err := in.drop.ExecContext(ctx, old); err != nil {
			return err
		}
	} else if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	res, err := in.add.ExecContext(ctx, coll, r.ID, live, r.Text, string(payload), tagsField(r.Tags), encodeVec(r.Vector), r.Created.UnixNano())
	if err != nil {
		return err
	}
	rid, _ := res.LastInsertId()
	_, err = in.addFTS.ExecContext(ctx, rid, strings.Join(Stems(r.Text), " "))
	return err
}

// Upsert implements Store.
func (s *SQLite) Upsert(ctx context.Context, coll string, recs []Record) error {
	for i := 0; i < len(recs); i += 500 {
		batch := recs[i:min(i+500, len(recs))]
		err := s.tx(ctx, coll, func(tx *sql.Tx) error { return s.insertAll(ctx, tx, coll, batch, 1) })
		if err != nil {
			return fmt.Errorf("memory store upsert: %w", err)
		}
	}
	return nil
}

// Replace implements Store: the new records are written invisible (live = 0)
// in batches, then one transaction deletes the old set and makes the new one
// live. Invisible leftovers of a crashed run are removed first.
func (s *SQLite) Replace(ctx context.Context, coll, field, value string, recs iter.Seq2[Record, error]) error {
	sel := `coll = ? AND json_extract(payload, '$.' || ?) = ?`
	if err := s.tx(ctx, coll, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM records_fts WHERE rowid IN (SELECT rid FROM records WHERE live = 0 AND `+sel+`)`, coll, field, value); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM records WHERE live = 0 AND `+sel, coll, field, value)
		return err
	}); err != nil {
		return fmt.Errorf("memory store replace: %w", err)
	}
	err := batches(recs, 500, func(batch []Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		staged := make([]Record, len(batch))
		for i, r := range batch {
			r.ID = "~" + r.ID // staging ids never collide with live ones
			staged[i] = r
		}
		return s.tx(ctx, coll, func(tx *sql.Tx) error { return s.insertAll(ctx, tx, coll, staged, 0) })
	})
	if err != nil {
		return fmt.Errorf("memory store replace: %w", err)
	}
	err = s.tx(ctx, coll, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM records_fts WHERE rowid IN (SELECT rid FROM records WHERE live = 1 AND `+sel+`)`, coll, field, value); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM records WHERE live = 1 AND `+sel, coll, field, value); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE records SET live = 1, id = substr(id, 2) WHERE live = 0 AND `+sel, coll, field, value)
		return err
	})
	if err != nil {
		return fmt.Errorf("memory store replace: %w", err)
	}
	return nil
}

func (s *SQLite) where(coll string, f Filter) (string, []any) {
	q := `coll = ? AND live = 1`
	args := []any{coll}
	keys := make([]string, 0, len(f.Fields))
	for k := range f.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		q += ` AND json_extract(payload, '$.' || ?) = ?`
		args = append(args, k, f.Fields[k])
	}
	for _, t := range f.Tags {
		q += ` AND instr(tags, ?) > 0`
		args = append(args, ","+t+",")
	}
	return q, args
}

func scanRecord(rows interface{ Scan(...any) error }) (Record, error) {
	var r Record
	var payload, tags string
	var created int64
	if err := rows.Scan(&r.ID, &r.Text, &payload, &tags, &created); err != nil {
		return r, err
	}
	json.Unmarshal([]byte(payload), &r.Payload)
	r.Tags = parseTags(tags)
	r.Created = time.Unix(0, created).UTC()
	return r, nil
}

// Get implements Store.
func (s *SQLite) Get(ctx context.Context, coll, id string) (Record, error) {
	var r Record
	err := s.retry(ctx, func(ctx context.Context) error {
		var err error
		r, err = scanRecord(s.db.QueryRowContext(ctx, `SELECT id, text, payload, tags, created FROM records WHERE coll = ? AND id = ? AND live = 1`, coll, id))
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("%s %q: %w", coll, id, ErrNotFound)
	}
	return r, err
}

// List implements Store: newest first.
func (s *SQLite) List(ctx context.Context, coll string, f Filter, limit int) ([]Record, error) {
	if limit <= 0 {
		limit = 100
	}
	w, args := s.where(coll, f)
	var out []Record
	err := s.retry(ctx, func(ctx context.Context) error {
		out = nil
		rows, err := s.db.QueryContext(ctx, `SELECT id, text, payload, tags, created FROM records WHERE `+w+` ORDER BY created DESC, rid DESC LIMIT ?`, append(args, limit)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			r, err := scanRecord(rows)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return rows.Err()
	})
	return out, err
}

// Count implements Store.
func (s *SQLite) Count(ctx context.Context, coll string, f Filter) (int, error) {
	w, args := s.where(coll, f)
	var n int
	err := s.retry(ctx, func(ctx context.Context) error {
		return s.db.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE `+w, args...).Scan(&n)
	})
	return n, err
}

// Delete implements Store.
func (s *SQLite) Delete(ctx context.Context, coll string, f Filter) (int, error) {
	w, args := s.where(coll, f)
	var n int64
	err := s.tx(ctx, coll, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM records_fts WHERE rowid IN (SELECT rid FROM records WHERE `+w+`)`, args...); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM records WHERE `+w, args...)
		if err == nil {
			n, _ = res.RowsAffected()
		}
		return err
	})
	return int(n), err
}

// DeleteID implements Store.
func (s *SQLite) DeleteID(ctx context.Context, coll, id string) error {
	var n int64
	err := s.tx(ctx, coll, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM records_fts WHERE rowid IN (SELECT rid FROM records WHERE coll = ? AND id = ? AND live = 1)`, coll, id); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM records WHERE coll = ? AND id = ? AND live = 1`, coll, id)
		if err == nil {
			n, _ = res.RowsAffected()
		}
		return err
	})
	if err == nil && n == 0 {
		return fmt.Errorf("%s %q: %w", coll, id, ErrNotFound)
	}
	return err
}

// index is the in-memory vector index of one collection.
type index struct {
	gen   int64 // the collection's generation it reflects
	dim   int
	words int      // uint64 words per code
	rids  []int64  // row ids, in load order
	ids   []string // record ids
	codes []uint64 // 1-bit codes, words per record
	q8    []int8   // int8 vectors, dim per record
	scale []float32
	// fields holds each record's payload and tags as "\x00k=v\x00…\x00#tag\x00",
	// one string a record: filters are substring tests, and 100k records
	// cost megabytes, not the tens a map each would.
	fields []string
	// kw is the keyword index, built on the first keyword search
	// (keywordIndex).
	kwMu sync.Mutex
	kw   *keywords
}

// Warm loads the vector index of every collection the store holds, so
// that the first search after a start does not pay for it. It creates
// nothing. Long-lived servers call it in the background.
func (s *SQLite) Warm(ctx context.Context) error {
	var colls []string
	err := s.retry(ctx, func(ctx context.Context) error {
		colls = nil
		rows, err := s.db.QueryContext(ctx, `SELECT name FROM collections`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				return err
			}
			colls = append(colls, c)
		}
		return rows.Err()
	})
	if err != nil {
		return err
	}
	for _, c := range colls {
		if _, err := s.refresh(ctx, c); err != nil && !errors.Is(err, ErrNoCollection) {
			return err
		}
	}
	return nil
}

// refresh reloads the in-memory indexes when another process (or this one)
// wrote to the file since the last look. A collection's indexes are
// rebuilt when it was written (its generation moved), not when another
// collection was: remembering a decision does not make the next pattern
// search reload 100,000 records. A write that did not say its collection
// (a Bridle from before: the file's generation moved, the tracked count did
// not follow) rebuilds them all.
func (s *SQLite) refresh(ctx context.Context, coll string) (*index, error) {
	var gen, tracked, collGen int64
	if err := s.retry(ctx, func(ctx context.Context) error {
		gen, tracked, collGen = 0, 0, 0
		rows, err := s.db.QueryContext(ctx, `SELECT k, v FROM meta WHERE k IN ('gen', 'tracked', ?)`, "gen:"+coll)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			var v int64
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			switch k {
			case "gen":
				gen = v
			case "tracked":
				tracked = v
			default:
				collGen = v
			}
		}
		return rows.Err()
	}); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if untracked := gen - tracked; untracked != s.seen {
		s.idx, s.seen = map[string]*index{}, untracked
	}
	if ix, ok := s.idx[coll]; ok && ix.gen == collGen {
		return ix, nil
	}
	var dim int
	err := s.retry(ctx, func(ctx context.Context) error {
		return s.db.QueryRowContext(ctx, `SELECT dim FROM collections WHERE name = ?`, coll).Scan(&dim)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%q: %w", coll, ErrNoCollection)
	}
	if err != nil {
		return nil, err
	}
	ix := &index{dim: dim, words: (dim + 63) / 64}
	err = s.retry(ctx, func(ctx context.Context) error {
		*ix = index{dim: dim, words: (dim + 63) / 64}
		rows, err := s.db.QueryContext(ctx, `SELECT rid, id, payload, tags, vec FROM records WHERE coll = ? AND live = 1 ORDER BY rid`, coll)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var rid int64
			var id, payload, tags string
			var vec []byte
			if err := rows.Scan(&rid, &id, &payload, &tags, &vec); err != nil {
				return err
			}
			q, sc := decodeVec(vec)
			if len(q) != dim {
				continue
			}
			var p map[string]string
			json.Unmarshal([]byte(payload), &p)
			ix.add(rid, id, q, sc, compactFields(p, parseTags(tags)))
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	ix.gen = collGen
	s.idx[coll] = ix
	if len(ix.ids) > 10000 {
		debug.FreeOSMemory() // loading left garbage the size of the index; give it back now
	}
	return ix, nil
}

func compactFields(p map[string]string, tags []string) string {
	var b strings.Builder
	b.WriteByte(0)
	for _, k := range slices.Sorted(maps.Keys(p)) {
		b.WriteString(k + "=" + p[k])
		b.WriteByte(0)
	}
	for _, t := range tags {
		b.WriteString("#" + t)
		b.WriteByte(0)
	}
	return b.String()
}

func (ix *index) add(rid int64, id string, q []int8, sc float32, fields string) {
	ix.rids = append(ix.rids, rid)
	ix.ids = append(ix.ids, id)
	code := make([]uint64, ix.words)
	for i, x := range q {
		if x > 0 {
			code[i/64] |= 1 << (i % 64)
		}
	}
	ix.codes = append(ix.codes, code...)
	ix.q8 = append(ix.q8, q...)
	ix.scale = append(ix.scale, sc)
	ix.fields = append(ix.fields, fields)
}

// needles turns a filter into the substrings a matching record holds.
func needles(f Filter) []string {
	var out []string
	for k, v := range f.Fields {
		out = append(out, "\x00"+k+"="+v+"\x00")
	}
	for _, t := range f.Tags {
		out = append(out, "\x00#"+t+"\x00")
	}
	return out
}

func (ix *index) match(i int, ns []string) bool {
	for _, n := range ns {
		if !strings.Contains(ix.fields[i], n) {
			return false
		}
	}
	return true
}

// search returns the k best records for v: hamming distance on the 1-bit
// codes picks candidates, int8 dot products rank them.
func (ix *index) search(v []float32, k int, f Filter) []scored {
	n := len(ix.ids)
	if n == 0 {
		return nil
	}
	qcode := make([]uint64, ix.words)
	for i, x := range v {
		if x > 0 {
			qcode[i/64] |= 1 << (i % 64)
		}
	}
	dist := make([]uint16, n)
	var hist [4097]int
	ns := needles(f)
	for i := 0; i < n; i++ {
		if len(ns) > 0 {
			if !ix.match(i, ns) {
				dist[i] = math.MaxUint16
				continue
			}
		}
		var d int
		c := ix.codes[i*ix.words : (i+1)*ix.words]
		for w := range c {
			d += bits.OnesCount64(c[w] ^ qcode[w])
		}
		dist[i] = uint16(d)
		hist[min(d, 4096)]++
	}
	want := max(k*100, 2000) // 1-bit codes are coarse; rescoring 2,000 int8 vectors takes about a millisecond
	limit, total := 0, 0
	for limit = 0; limit < len(hist) && total < want; limit++ {
		total += hist[limit]
	}
	// The query in 16 bits: integer dot products against the int8 vectors
	// are twice as fast as converting each to float, and lose nothing an
	// int8 vector holds.
	qv, qscale := quantize16(v)
	var cand []scored
	for i := 0; i < n; i++ {
		if int(dist[i]) < limit {
			dot := dot8x16(ix.q8[i*ix.dim:(i+1)*ix.dim], qv)
			cand = append(cand, scored{i, float64(dot) * qscale * float64(ix.scale[i])})
		}
	}
	slices.SortFunc(cand, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return a.i - b.i
	})
	if len(cand) > k {
		cand = cand[:k]
	}
	return cand
}

// quantize16 scales v to int16 (its largest magnitude to 32767) and
// returns the factor that undoes it.
func quantize16(v []float32) ([]int16, float64) {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(float64(x)))
	}
	q := make([]int16, len(v))
	if m == 0 {
		return q, 0
	}
	f := 32767 / m
	for j, x := range v {
		q[j] = int16(math.Round(float64(x) * f))
	}
	return q, 1 / f
}

// dot8x16 is the dot product of a and b[:len(a)], in four independent sums.
func dot8x16(a []int8, b []int16) int64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int64(a[i]) * int64(b[i])
		s1 += int64(a[i+1]) * int64(b[i+1])
		s2 += int64(a[i+2]) * int64(b[i+2])
		s3 += int64(a[i+3]) * int64(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int64(a[i]) * int64(b[i])
	}
	return s0 + s1 + s2 + s3
}

type scored struct {
	i     int
	score float64
}

// Search implements Store.
func (s *SQLite) Search(ctx context.Context, coll string, q Query) ([]Hit, error) {
	if q.K <= 0 {
		q.K = 10
	}
	if q.Mode == "" {
		q.Mode = Hybrid
	}
	var vec, kw []Hit
	var verr error
	done := make(chan struct{})
	go func() { // vector and keyword ranking run side by side
		defer close(done)
		if q.Mode == Keyword {
			return
		}
		if len(q.Vector) == 0 {
			verr = errors.New("memory search: no query vector")
			return
		}
		ix, err := s.refresh(ctx, coll)
		if err != nil {
			verr = fmt.Errorf("memory search: %w", err)
			return
		}
		if len(q.Vector) != ix.dim {
			verr = fmt.Errorf("memory search: %w (query has %d dimensions, the collection %d)", ErrModelMismatch, len(q.Vector), ix.dim)
			return
		}
		n := q.K
		if q.Mode == Hybrid {
			n = hybridDepth(q.K)
		}
		for _, r := range ix.search(q.Vector, n, q.Filter) {
			vec = append(vec, Hit{Record: Record{ID: ix.ids[r.i]}, Score: r.score})
		}
	}()
	var kerr error
	if q.Mode != Vector {
		kw, kerr = s.keyword(ctx, coll, q)
	}
	<-done
	if verr != nil {
		return nil, verr
	}
	if kerr != nil {
		return nil, kerr
	}
	var hits []Hit
	switch q.Mode {
	case Vector:
		hits = vec
	case Keyword:
		hits = kw
		if len(hits) > q.K {
			hits = hits[:q.K]
		}
	default:
		hits = fuse(vec, kw, q.K)
	}
	return s.fill(ctx, coll, hits)
}

// keyword ranks by BM25 over the collection's keyword index (keywords).
func (s *SQLite) keyword(ctx context.Context, coll string, q Query) ([]Hit, error) {
	terms := append(Stems(q.Text), q.Expand...)
	if len(terms) == 0 {
		return nil, nil
	}
	ix, err := s.refresh(ctx, coll)
	if errors.Is(err, ErrNoCollection) {
		return nil, nil // nothing indexed yet: nothing matches
	}
	if err != nil {
		return nil, fmt.Errorf("memory keyword search: %w", err)
	}
	kw, err := s.keywordIndex(ctx, coll, ix)
	if err != nil {
		return nil, fmt.Errorf("memory keyword search: %w", err)
	}
	terms = discriminating(kw, len(ix.ids), slices.Compact(slices.Sorted(slices.Values(terms))), q.Mode == Hybrid)
	if len(terms) == 0 {
		return nil, nil
	}
	n := q.K
	if q.Mode == Hybrid {
		n = hybridDepth(q.K)
	}
	var keep func(int) bool
	if ns := needles(q.Filter); len(ns) > 0 {
		keep = func(i int) bool { return ix.match(i, ns) }
	}
	var out []Hit
	for _, r := range kw.rank(terms, n, keep) {
		out = append(out, Hit{Record: Record{ID: ix.ids[r.i]}, Score: r.score})
	}
	return out, nil
}

// discriminating drops query terms found in more than a twentieth of the
// total records (and in more than 5,000): their BM25 weight is near zero,
// and matching them makes most of a large collection a match to score.
// Small collections keep every term; the two rarest terms are kept, except
// that in a hybrid search a term in more than half the records is dropped
// even then (BM25's idf for it is at or below zero, so it ranks nothing,
// and the vector ranking stands alone when every term is such).
func discriminating(kw *keywords, total int, terms []string, hybrid bool) []string {
	if len(terms) <= 2 || total < 5000 {
		return terms
	}
	sorted := slices.Clone(terms)
	slices.SortStableFunc(sorted, func(a, b string) int { return int(kw.df(a) - kw.df(b)) })
	var out []string
	for i, t := range sorted {
		df := kw.df(t)
		if df == 0 {
			continue // in no record: cannot match
		}
		if hybrid && 2*df > int64(total) {
			// In most records: BM25's idf for it is at or below zero
			// (clamped to ~1e-6), so it adds nothing to any score and only
			// makes every record a match to rank.
			continue
		}
		if i < 2 || df <= int64(max(total/20, 5000)) {
			out = append(out, t)
		}
	}
	if len(out) == 0 && !hybrid {
		return sorted[:1] // keyword search alone: rank by the rarest word anyway
	}
	return out // none: in a hybrid search the words rank nothing, vectors alone do
}

// fill loads the records behind hits in one query.
func (s *SQLite) fill(ctx context.Context, coll string, hits []Hit) ([]Hit, error) {
	if len(hits) == 0 {
		return hits, nil
	}
	args := []any{coll}
	marks := make([]string, len(hits))
	for i, h := range hits {
		args = append(args, h.ID)
		marks[i] = "?"
	}
	byID := map[string]Record{}
	err := s.retry(ctx, func(ctx context.Context) error {
		// "live" is not in the WHERE clause: with it the planner may pick the
		// (coll, live) index and scan the collection instead of the unique one.
		rows, err := s.db.QueryContext(ctx, `SELECT id, text, payload, tags, created, live FROM records INDEXED BY sqlite_autoindex_records_1 WHERE coll = ? AND id IN (`+strings.Join(marks, ",")+`)`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r Record
			var payload, tags string
			var created int64
			var live int
			if err := rows.Scan(&r.ID, &r.Text, &payload, &tags, &created, &live); err != nil {
				return err
			}
			if live != 1 {
				continue
			}
			json.Unmarshal([]byte(payload), &r.Payload)
			r.Tags = parseTags(tags)
			r.Created = time.Unix(0, created).UTC()
			byID[r.ID] = r
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	out := hits[:0]
	for _, h := range hits {
		if r, ok := byID[h.ID]; ok { // a record deleted since the index was loaded is skipped
			h.Record = r
			out = append(out, h)
		}
	}
	return out, nil
}
