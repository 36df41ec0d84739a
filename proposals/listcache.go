package proposals

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// listCache keeps what the local backend's List decoded and decided, so a
// long queue is neither re-read nor re-checked on every listing:
//
//   - a record is reused while its file's size and modification time are
//     the ones it was read at (every write of a record replaces its file);
//   - a mergeability verdict is reused while the proposal's head commit and
//     main's commit are the ones it was reached for: the change a proposal
//     applies is its head commit's, and the document it applies to is
//     main's, so the same pair always gets the same answer.
//
// Nothing is cached that the files or the commits do not pin, so a record
// written by another process (the CLI, a sidecar) is read again.
type listCache struct {
	mu       sync.Mutex
	records  map[int]cachedRecord
	main     string             // the main commit the verdicts are for
	verdicts map[string]verdict // by head commit
}

type cachedRecord struct {
	size int64
	mod  time.Time
	m    meta // without its body and message: List answers neither
}

type verdict struct {
	mergeable bool
	conflict  string
}

// record is proposal n's record for a listing: from the cache while its
// file is unchanged, else read and kept.
func (l *Local) record(n int) (meta, error) {
	path := filepath.Join(l.dir(), fmt.Sprintf("%d.json", n))
	st, err := os.Stat(path)
	if err != nil {
		return l.load(n) // gone meanwhile: load says so
	}
	c := &l.cache
	c.mu.Lock()
	cr, ok := c.records[n]
	c.mu.Unlock()
	if ok && cr.size == st.Size() && cr.mod.Equal(st.ModTime()) {
		return cr.m, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return meta{}, err
	}
	var lr listedRecord
	if err := json.Unmarshal(b, &lr); err != nil {
		return meta{}, fmt.Errorf("proposal #%d: damaged record: %w", n, err)
	}
	m := meta{Proposal: lr.Proposal}
	c.mu.Lock()
	if c.records == nil {
		c.records = map[int]cachedRecord{}
	}
	c.records[n] = cachedRecord{size: st.Size(), mod: st.ModTime(), m: m}
	c.mu.Unlock()
	return m, nil
}

// listedRecord is a record as a listing reads it: its body and message
// (most of its bytes) are skipped, not decoded.
type listedRecord struct {
	Proposal
	Body    skipped `json:"body"`
	Message skipped `json:"message"`
}

// skipped is a JSON value read past and not kept.
type skipped struct{}

func (*skipped) UnmarshalJSON([]byte) error { return nil }

// verdict is the cached mergeability of head on main, if there is one.
func (c *listCache) verdict(head, main string) (verdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if head == "" || c.main != main {
		return verdict{}, false
	}
	v, ok := c.verdicts[head]
	return v, ok
}

// keep records the mergeability of head on main; verdicts for another
// main are dropped (main only moves forward).
func (c *listCache) keep(head, main string, v verdict) {
	if head == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.main != main || c.verdicts == nil {
		c.main, c.verdicts = main, map[string]verdict{}
	}
	c.verdicts[head] = v
}
