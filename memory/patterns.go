package memory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/bridle-dev/bridle/redact"
	"github.com/bridle-dev/bridle/schema"
)

// PatternsCollection holds pattern-example chunks.
const PatternsCollection = "patterns"

// offlineCollection holds the same chunks with the offline embedder's
// vectors when a model embeds PatternsCollection.
const offlineCollection = "patterns-offline"

// Progress reports indexing: stage is "clone", "walk" or "embed".
type Progress func(stage string, done, total int)

// Indexer indexes the example repositories of custom patterns.
type Indexer struct {
	Store    Store
	Embedder Embedder
	Examples ExampleOptions
	WorkDir  string // clones go here; a temporary directory when empty
	Progress Progress
	Now      func() time.Time
	// Redactor masks secrets in the indexed text: example code can hold
	// the same token Bridle does, and search results go to agents.
	Redactor *redact.Redactor
}

// IndexStats says what an index run did.
type IndexStats struct {
	ReferenceTag string        `json:"reference_tag"`
	Files        int           `json:"files"`
	Skipped      int           `json:"skipped,omitempty"` // files over Limits.MaxFileBytes
	Bytes        int64         `json:"bytes"`
	Chunks       int           `json:"chunks"`
	Duration     time.Duration `json:"duration"`
}

// Errors of Index, for errors.Is.
var (
	// ErrBadRepo is returned for a URL or path that is not a usable repository.
	ErrBadRepo = errors.New("not a usable repository")
	// ErrLimit is returned when an example exceeds one of its Limits.
	ErrLimit = errors.New("example too large")
)

// Index clones ex (shallow for URLs), walks it, chunks and embeds it in
// batches that are written to the store as they are made, and replaces
// the reference tag's chunks atomically. Memory stays bounded by one batch
// and one file, whatever the example's size; an example over a limit is
// refused and its old chunks keep answering.
func (ix *Indexer) Index(ctx context.Context, pattern string, ex schema.ExampleRepo) (IndexStats, error) {
	t0 := time.Now()
	now := time.Now
	if ix.Now != nil {
		now = ix.Now
	}
	progress := ix.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	lim := ix.Examples.Limits.orDefault()
	if err := ensure(ctx, ix.Store, PatternsCollection, ix.Embedder); err != nil {
		return IndexStats{}, err
	}
	progress("clone", 0, 1)
	root, cleanup, err := ix.checkout(ctx, ex)
	if err != nil {
		return IndexStats{}, err
	}
	defer cleanup()
	progress("clone", 1, 1)

	arch := ex.ArchTag
	if arch == "" {
		arch = pattern
	}
	stats := IndexStats{ReferenceTag: ex.ReferenceTag}
	walkRoots := ex.Paths
	if len(walkRoots) == 0 {
		walkRoots = []string{"."}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return stats, err
	}
	starts := make([]string, len(walkRoots))
	for i, sub := range walkRoots {
		if starts[i], err = inside(realRoot, sub); err != nil {
			return stats, err
		}
	}
	indexed := now().UTC().Format(time.RFC3339)
	sourceRepo, _ := redact.MaskCredentials(ex.URL)
	limitErr := func(what string, limit int64, env string) error {
		return fmt.Errorf("%w: example %s has more than %d %s (the limit is %s; raise it, or narrow the example with paths:)",
			ErrLimit, ex.ReferenceTag, limit, what, env)
	}

	// records walks, chunks and embeds with emb, yielding records batch by
	// batch and counting into stats.
	records := func(emb Embedder, stats *IndexStats) iter.Seq2[Record, error] {
		return func(yield func(Record, error) bool) {
			const batch = 128
			var pending []Chunk
			stopped := false
			flush := func() bool {
				if len(pending) == 0 {
					return true
				}
				if err := ctx.Err(); err != nil {
					yield(Record{}, err)
					return false
				}
				texts := make([]string, len(pending))
				weighted := make([]string, len(pending))
				for j, c := range pending {
					texts[j] = ix.Redactor.Redact(embedText(c))
					weighted[j] = texts[j]
					if _, ok := emb.(Hashing); ok {
						// The offline embedder weighs the path and name line double.
						weighted[j] = fieldWeighted(texts[j])
					}
				}
				vecs, err := emb.Embed(ctx, weighted)
				if err != nil {
					yield(Record{}, err)
					return false
				}
				for j, c := range pending {
					r := Record{
						ID:     fmt.Sprintf("%s:%s:%d", ex.ReferenceTag, c.Path, c.Start),
						Text:   texts[j],
						Vector: vecs[j],
						Payload: map[string]string{
							"reference_tag": ex.ReferenceTag, "arch_tag": arch, "pattern": pattern, "source_repo": sourceRepo,
							"file_path": c.Path, "chunk_type": c.Type, "name": c.Name,
							"start_line": strconv.Itoa(c.Start), "end_line": strconv.Itoa(c.End), "last_indexed": indexed,
						},
					}
					if !yield(r, nil) {
						return false
					}
				}
				progress("embed", stats.Chunks, 0)
				pending = pending[:0]
				return true
			}
			fail := func(err error) error {
				stopped = true
				yield(Record{}, err)
				return err
			}
			for i, start := range starts {
				err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
					if stopped {
						return filepath.SkipAll
					}
					if err != nil {
						if p == start {
							return fail(fmt.Errorf("example %s: path %q: %w", ex.ReferenceTag, walkRoots[i], err))
						}
						return nil
					}
					if d.IsDir() {
						if skipDir[d.Name()] || (strings.HasPrefix(d.Name(), ".") && p != start) {
							return filepath.SkipDir
						}
						return nil
					}
					if !d.Type().IsRegular() {
						return nil // symlinks and devices could lead outside the clone
					}
					data, tooBig, err := readAtMost(p, lim.MaxFileBytes)
					if err != nil {
						return nil
					}
					rel, _ := filepath.Rel(realRoot, p)
					rel = filepath.ToSlash(rel)
					if tooBig {
						stats.Skipped++
						return nil
					}
					if !indexable(rel, data) {
						return nil
					}
					stats.Files++
					stats.Bytes += int64(len(data))
					switch {
					case int64(stats.Files) > lim.MaxFiles:
						return fail(limitErr("files", lim.MaxFiles, "BRIDLE_EXAMPLES_MAX_FILES"))
					case stats.Bytes > lim.MaxTotalBytes:
						return fail(limitErr("bytes of indexable files", lim.MaxTotalBytes, "BRIDLE_EXAMPLES_MAX_BYTES"))
					}
					for _, c := range ChunkFile(rel, data) {
						stats.Chunks++
						if int64(stats.Chunks) > lim.MaxChunks {
							return fail(limitErr("chunks", lim.MaxChunks, "BRIDLE_EXAMPLES_MAX_CHUNKS"))
						}
						pending = append(pending, c)
						if len(pending) == batch && !flush() {
							stopped = true
							return filepath.SkipAll
						}
					}
					if stats.Files%50 == 0 {
						progress("walk", stats.Files, 0)
					}
					return nil
				})
				if stopped {
					return
				}
				if err != nil {
					yield(Record{}, err)
					return
				}
			}
			progress("walk", stats.Files, stats.Files)
			flush()
		}
	}
	if err := ix.Store.Replace(ctx, PatternsCollection, "reference_tag", ex.ReferenceTag, records(ix.Embedder, &stats)); err != nil {
		return stats, err
	}
	if _, ok := ix.Embedder.(Hashing); !ok {
		// With a model, the offline vectors are kept too, in their own
		// collection: searches fuse both, so a model never ranks worse than
		// the offline embedder would have (SearchPatterns).
		var again IndexStats
		if err := ensure(ctx, ix.Store, offlineCollection, Hashing{}); err != nil {
			return stats, err
		}
		if err := ix.Store.Replace(ctx, offlineCollection, "reference_tag", ex.ReferenceTag, records(Hashing{}, &again)); err != nil {
			return stats, err
		}
	}
	stats.Duration = time.Since(t0)
	return stats, nil
}

// readAtMost reads a file of at most max bytes; tooBig if it is longer
// (read through a limit, so a file that grows after the walk saw it cannot
// make it read more).
func readAtMost(p string, max int64) (data []byte, tooBig bool, err error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > max {
		return nil, true, nil
	}
	return data, false, nil
}

// embedText is what gets embedded and keyword-indexed: the path and name
// help both.
func embedText(c Chunk) string {
	head := "file: " + c.Path
	if c.Name != "" {
		head += " · " + c.Type + " " + c.Name
	}
	return head + "\n" + c.Text
}

// fieldWeighted is embedText's result with its fields weighted for the
// offline embedder, which has no other notion of fields: the path and name
// line counts twice. (Weighing doc comments double too ranked worse on the
// tuning questions.) The stored text stays embedText's.
func fieldWeighted(text string) string {
	head, _, _ := strings.Cut(text, "\n")
	return head + "\n" + text
}

// inside resolves sub under root and refuses anything that escapes it.
func inside(root, sub string) (string, error) {
	if filepath.IsAbs(sub) {
		return "", fmt.Errorf("%w: path %q must be relative to the repository", ErrBadRepo, sub)
	}
	p := filepath.Join(root, filepath.FromSlash(sub))
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("path %q in the example: %w", sub, err)
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: path %q escapes the repository", ErrBadRepo, sub)
	}
	return real, nil
}

// checkout returns a directory holding the example at its ref.
func (ix *Indexer) checkout(ctx context.Context, ex schema.ExampleRepo) (string, func(), error) {
	noop := func() {}
	url := ex.URL
	local, isLocal, err := ix.Examples.localPath(url)
	if err != nil {
		return "", noop, err
	}
	if isLocal {
		if _, err := git.PlainOpen(local); err != nil || ex.Ref == "" {
			return local, noop, nil // a plain directory, or the work tree as it is
		}
		url = local
	}
	dir, err := os.MkdirTemp(ix.WorkDir, "bridle-example-")
	if err != nil {
		return "", noop, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	opts := &git.CloneOptions{URL: url, SingleBranch: true}
	if !isLocal {
		opts.Depth = 1
		if auth := ix.Examples.auth(url); auth != nil {
			opts.Auth = auth
		}
	}
	if ex.Ref != "" && !plumbing.IsHash(ex.Ref) {
		opts.ReferenceName = plumbing.NewBranchReferenceName(ex.Ref)
	}
	repo, err := git.PlainCloneContext(ctx, dir, false, opts)
	if err != nil && opts.ReferenceName != "" {
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o700)
		opts.ReferenceName = plumbing.NewTagReferenceName(ex.Ref)
		repo, err = git.PlainCloneContext(ctx, dir, false, opts)
	}
	shown, _ := redact.MaskCredentials(ex.URL)
	if err != nil {
		cleanup()
		msg := redact.New(ix.Examples.Token).Redact(err.Error())
		return "", noop, fmt.Errorf("%w: clone %s: %s", ErrBadRepo, shown, msg)
	}
	if plumbing.IsHash(ex.Ref) {
		wt, _ := repo.Worktree()
		if err := wt.Checkout(&git.CheckoutOptions{Hash: plumbing.NewHash(ex.Ref)}); err != nil {
			cleanup()
			return "", noop, fmt.Errorf("%w: %s has no commit %s", ErrBadRepo, shown, ex.Ref)
		}
	}
	return dir, cleanup, nil
}

// ExampleStatus is one pattern example and its index: how many chunks the
// store holds for it and when it was last indexed.
type ExampleStatus struct {
	Pattern      string `json:"pattern"`
	ReferenceTag string `json:"reference_tag"`
	ArchTag      string `json:"arch_tag"`
	URL          string `json:"url"`
	Chunks       int    `json:"chunks"`
	LastIndexed  string `json:"last_indexed,omitempty"`
}

// Statuses is the index status of every example of patterns, in order
// (bridle patterns list, the gateway's admin API).
func Statuses(ctx context.Context, s Store, patterns []schema.CustomPattern) []ExampleStatus {
	out := []ExampleStatus{}
	for _, p := range patterns {
		for _, ex := range p.ExampleRepos {
			f := Filter{Fields: map[string]string{"reference_tag": ex.ReferenceTag}}
			n, _ := s.Count(ctx, PatternsCollection, f)
			st := ExampleStatus{Pattern: p.Name, ReferenceTag: ex.ReferenceTag, ArchTag: ex.ArchTag, URL: ex.URL, Chunks: n}
			if recs, err := s.List(ctx, PatternsCollection, f, 1); err == nil && len(recs) == 1 {
				st.LastIndexed = recs[0].Payload["last_indexed"]
			}
			out = append(out, st)
		}
	}
	return out
}
