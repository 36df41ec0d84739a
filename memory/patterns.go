package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/bridle-dev/bridle/schema"
)

// PatternsCollection holds pattern-example chunks.
const PatternsCollection = "patterns"

// Progress reports indexing: stage is "clone", "walk" or "embed".
type Progress func(stage string, done, total int)

// Indexer indexes the example repositories of custom patterns.
type Indexer struct {
	Store    Store
	Embedder Embedder
	Token    string // for private https repositories (basic auth password)
	WorkDir  string // clones go here; a temporary directory when empty
	Progress Progress
	Now      func() time.Time
}

// IndexStats says what an index run did.
type IndexStats struct {
	ReferenceTag string        `json:"reference_tag"`
	Files        int           `json:"files"`
	Chunks       int           `json:"chunks"`
	Duration     time.Duration `json:"duration"`
}

// ErrBadRepo is returned for a URL or path that is not a usable repository.
var ErrBadRepo = errors.New("not a usable repository")

// Index clones ex (shallow for URLs), walks it, chunks it, embeds in
// batches and replaces the reference tag's chunks atomically.
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
	var chunks []Chunk
	walkRoots := ex.Paths
	if len(walkRoots) == 0 {
		walkRoots = []string{"."}
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return stats, err
	}
	for _, sub := range walkRoots {
		start, err := inside(realRoot, sub)
		if err != nil {
			return stats, err
		}
		err = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == start {
					return fmt.Errorf("example %s: path %q: %w", ex.ReferenceTag, sub, err)
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
			info, err := d.Info()
			if err != nil || info.Size() > maxFileSize {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			rel, _ := filepath.Rel(realRoot, p)
			rel = filepath.ToSlash(rel)
			if !indexable(rel, data) {
				return nil
			}
			stats.Files++
			chunks = append(chunks, ChunkFile(rel, data)...)
			if stats.Files%50 == 0 {
				progress("walk", stats.Files, 0)
			}
			return nil
		})
		if err != nil {
			return stats, err
		}
	}
	progress("walk", stats.Files, stats.Files)

	indexed := now().UTC().Format(time.RFC3339)
	recs := make([]Record, 0, len(chunks))
	const batch = 128
	for i := 0; i < len(chunks); i += batch {
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		part := chunks[i:min(i+batch, len(chunks))]
		texts := make([]string, len(part))
		for j, c := range part {
			texts[j] = embedText(c)
		}
		vecs, err := ix.Embedder.Embed(ctx, texts)
		if err != nil {
			return stats, err
		}
		for j, c := range part {
			recs = append(recs, Record{
				ID:     fmt.Sprintf("%s:%s:%d", ex.ReferenceTag, c.Path, c.Start),
				Text:   texts[j],
				Vector: vecs[j],
				Payload: map[string]string{
					"reference_tag": ex.ReferenceTag, "arch_tag": arch, "pattern": pattern, "source_repo": ex.URL,
					"file_path": c.Path, "chunk_type": c.Type, "name": c.Name,
					"start_line": strconv.Itoa(c.Start), "end_line": strconv.Itoa(c.End), "last_indexed": indexed,
				},
			})
		}
		progress("embed", len(recs), len(chunks))
	}
	if err := ix.Store.Replace(ctx, PatternsCollection, "reference_tag", ex.ReferenceTag, Records(recs)); err != nil {
		return stats, err
	}
	stats.Chunks = len(recs)
	stats.Duration = time.Since(t0)
	return stats, nil
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
	if st, err := os.Stat(ex.URL); err == nil && st.IsDir() {
		if _, err := git.PlainOpen(ex.URL); err != nil || ex.Ref == "" {
			return ex.URL, noop, nil // a plain directory, or the work tree as it is
		}
	}
	dir, err := os.MkdirTemp(ix.WorkDir, "bridle-example-")
	if err != nil {
		return "", noop, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	opts := &git.CloneOptions{URL: ex.URL, SingleBranch: true}
	if strings.Contains(ex.URL, "://") {
		opts.Depth = 1
	}
	if ix.Token != "" && strings.HasPrefix(ex.URL, "http") {
		opts.Auth = &githttp.BasicAuth{Username: "bridle", Password: ix.Token}
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
	if err != nil {
		cleanup()
		msg := err.Error()
		if ix.Token != "" {
			msg = strings.ReplaceAll(msg, ix.Token, "[REDACTED]")
		}
		return "", noop, fmt.Errorf("%w: clone %s: %s", ErrBadRepo, ex.URL, msg)
	}
	if plumbing.IsHash(ex.Ref) {
		wt, _ := repo.Worktree()
		if err := wt.Checkout(&git.CheckoutOptions{Hash: plumbing.NewHash(ex.Ref)}); err != nil {
			cleanup()
			return "", noop, fmt.Errorf("%w: %s has no commit %s", ErrBadRepo, ex.URL, ex.Ref)
		}
	}
	return dir, cleanup, nil
}
