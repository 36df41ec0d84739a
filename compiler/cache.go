package compiler

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

// Cache keeps compiled snapshots by their exact input, so that compiling
// unchanged rules again (every bridle render, every sidecar start) skips
// validation and rendering. A key covers the rules bytes, where they came
// from (path, ref, commit, dirty), the resolved provenance and the bridle
// build; a development build is identified by its executable's size and
// modification time. Invalid rules are never cached.
//
// Entries are gob, not JSON: decoding a snapshot with encoding/json first
// builds the decoders (and encoders) of every type it holds, in every
// process — twice gob's whole decode, on the hook's path before every tool
// call and on every sidecar's start. gob carries no empty slice and no
// pointer to a zero scalar, and needs an interface's types registered:
// TestCacheRoundTrip holds a decoded entry to the snapshot that was put, as
// its JSON says it, and walks the snapshot's types for fields gob would not
// carry faithfully.
type Cache struct {
	Dir string // "" disables the cache
}

// cacheExt names a cache entry's file.
const cacheExt = ".gob"

// Key identifies one compilation of in by bridleVersion; forge names the
// forge's review (ForgeKey), "" for none.
func Key(in Input, bridleVersion, forge string, strict bool) string {
	h := sha256.New()
	fmt.Fprintf(h, "v4\x00%s\x00%s\x00%s\x00%s\x00%s\x00%t\x00%s\x00", bridleVersion, in.Name, in.Source.Kind, in.Source.Commit,
		in.Source.Ref, in.Source.Dirty, in.Source.Path)
	if bridleVersion == "" || bridleVersion == "dev" {
		if exe, err := os.Executable(); err == nil {
			if st, err := os.Stat(exe); err == nil {
				fmt.Fprintf(h, "%s\x00%d\x00%d\x00", exe, st.Size(), st.ModTime().UnixNano())
			}
		}
	}
	// The history is a function of the commit (above) and of whether it is
	// resolved at all; hashing the flag, not the history, lets a cache hit
	// skip walking it.
	fmt.Fprintf(h, "history=%t\x00forge=%q\x00strict=%t\x00", in.history || in.review != nil, forge, strict)
	h.Write(in.Data)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Get returns the snapshot cached under key, if any.
func (c Cache) Get(key string) *Snapshot {
	if c.Dir == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(c.Dir, key+cacheExt))
	if err != nil {
		return nil
	}
	var s Snapshot
	if gob.NewDecoder(bytes.NewReader(b)).Decode(&s) != nil || s.ContentHash == "" {
		return nil
	}
	if s.Renders == nil { // gob sends no empty slice; JSON says [] for it
		s.Renders = []renderers.File{}
	}
	return &s
}

// Put stores snap under key. Failures are ignored: it is only a cache.
func (c Cache) Put(key string, snap *Snapshot) {
	if c.Dir == "" || snap == nil {
		return
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(snap) != nil || os.MkdirAll(c.Dir, 0o700) != nil {
		return
	}
	b := buf.Bytes()
	suffix := make([]byte, 4)
	rand.Read(suffix)
	tmp := filepath.Join(c.Dir, key+".tmp"+hex.EncodeToString(suffix))
	if os.WriteFile(tmp, b, 0o600) != nil {
		os.Remove(tmp)
		return
	}
	os.Rename(tmp, filepath.Join(c.Dir, key+cacheExt)) // atomic; no fsync: a lost entry is recompiled
	if suffix[0] < 4 {                                 // now and then, keep the cache small
		c.prune(500)
	}
}

// prune keeps the newest max entries.
func (c Cache) prune(max int) {
	entries, err := os.ReadDir(c.Dir)
	if err != nil || len(entries) <= max {
		return
	}
	type entry struct {
		name string
		mod  time.Time
	}
	var es []entry
	for _, e := range entries {
		// .json: the entries of a Bridle before gob, never read again.
		if info, err := e.Info(); err == nil && (strings.HasSuffix(e.Name(), cacheExt) || strings.HasSuffix(e.Name(), ".json")) {
			es = append(es, entry{e.Name(), info.ModTime()})
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].mod.After(es[j].mod) })
	for _, e := range es[min(max, len(es)):] {
		os.Remove(filepath.Join(c.Dir, e.name))
	}
}

// ForgeKey is what of opts' forge decides a review besides the history:
// whether there is one, and who its bot is.
func ForgeKey(opts Options) string {
	if opts.PRLookup == nil {
		return ""
	}
	return "forge\x00" + opts.Bot
}

// CompileCached is Compile through c: unchanged input is served from the
// cache (hit reports it), anything else is compiled and cached when valid.
func CompileCached(opts Options, c Cache) (snap *Snapshot, diags schema.Diagnostics, hit bool, err error) {
	in, diags, err := Read(opts)
	if err != nil || diags.HasErrors() {
		return nil, diags, false, err
	}
	key := Key(in, opts.BridleVersion, ForgeKey(opts), opts.Strict)
	if s := c.Get(key); s != nil {
		return s, s.Warnings, true, nil
	}
	in.resolveHistory(opts)
	snap, diags = CompileBytes(in, opts.BridleVersion)
	if snap != nil && (snap.Approval == nil || !snap.Approval.Incomplete) {
		c.Put(key, snap)
	}
	return snap, diags, false, nil
}
