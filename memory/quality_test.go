package memory

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bridle-dev/bridle/schema"
)

// labelled are natural-language questions about go-git's source, each with
// the files (or directories, ending in /) that answer it.
var labelled = []struct {
	q    string
	want []string
}{
	{"how does git blame attribute each line to a commit", []string{"blame.go"}},
	{"parse a refspec like +refs/heads/*:refs/remotes/origin/*", []string{"config/refspec.go"}},
	{"decode the pack index idx file", []string{"plumbing/format/idxfile/"}},
	{"apply a delta to reconstruct an object from its base", []string{"plumbing/format/packfile/patch_delta.go"}},
	{"compute a binary delta between two objects when packing", []string{"plumbing/format/packfile/diff_delta.go", "plumbing/format/packfile/delta_index.go", "plumbing/format/packfile/delta_selector.go"}},
	{"match paths against gitignore patterns", []string{"plumbing/format/gitignore/"}},
	{"write a patch as a unified diff", []string{"plumbing/format/diff/unified_encoder.go"}},
	{"scan pkt-line length prefixed packets", []string{"plumbing/format/pktline/"}},
	{"demultiplex sideband progress messages from the server", []string{"plumbing/protocol/packp/sideband/"}},
	{"decode the references advertised by the remote", []string{"plumbing/protocol/packp/advrefs_decode.go", "plumbing/protocol/packp/advrefs.go"}},
	{"ssh authentication with a private key or the ssh agent", []string{"plumbing/transport/ssh/"}},
	{"http basic auth and tokens for cloning over https", []string{"plumbing/transport/http/"}},
	{"find the merge base of two commits", []string{"plumbing/object/merge_base.go"}},
	{"iterate commits in breadth first order", []string{"plumbing/object/commit_walker_bfs.go", "plumbing/object/commit_walker_bfs_filtered.go", "plumbing/object/commit_walker.go"}},
	{"resolve revision expressions like HEAD~2 or main^", []string{"internal/revision/", "repository.go", "plumbing/revision.go"}},
	{"which files are untracked or modified in the worktree status", []string{"worktree_status.go", "status.go"}},
	{"create a commit from the index with an author signature", []string{"worktree_commit.go"}},
	{"checkout a branch and update the files in the worktree", []string{"worktree.go"}},
	{"push local references to a remote repository", []string{"remote.go"}},
	{"fetch objects and update remote tracking branches", []string{"remote.go"}},
	{"read and write sections and options of the git config file", []string{"plumbing/format/config/", "config/config.go"}},
	{"decode entries and extensions of the git index file", []string{"plumbing/format/index/"}},
	{"least recently used cache of objects with a size limit", []string{"plumbing/cache/"}},
	{"initialise and update submodules", []string{"submodule.go"}},
	{"prune unreachable loose objects", []string{"prune.go", "repository_extensions.go"}},
	{"diff two trees to find the changed files", []string{"plumbing/object/difftree.go", "utils/merkletrie/"}},
	{"parse a signature with name email and timestamp", []string{"plumbing/object/signature.go"}},
	{"hash objects with sha256 object format", []string{"plumbing/hash/"}},
	{"match gitattributes to paths", []string{"plumbing/format/gitattributes/"}},
	{"read the commit graph file format", []string{"plumbing/format/commitgraph/"}},
	{"pool of zlib readers to decompress objects", []string{"utils/sync/"}},
	{"file modes of tree entries executable and symlink", []string{"plumbing/filemode/"}},
}

func relevant(path string, want []string) bool {
	path = strings.Replace(path, "_test.go", ".go", 1)
	for _, w := range want {
		if path == w || strings.HasSuffix(w, "/") && strings.HasPrefix(path, w) {
			return true
		}
	}
	return false
}

func goGitDir(t testing.TB) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/go-git/go-git/v5").Output()
	if err != nil {
		t.Skipf("go-git module source not found: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestRetrievalQuality indexes go-git's source and reports recall@10 of the
// labelled questions for keyword-only, vector-only and hybrid search.
// Hybrid must be at least as good as the better of the other two.
func TestRetrievalQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a real repository")
	}
	ctx := context.Background()
	store, err := OpenSQLite(filepath.Join(t.TempDir(), "q.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	emb := Hashing{}
	ix := &Indexer{Store: store, Embedder: emb, Examples: ExampleOptions{Root: goGitDir(t)}}
	st, err := ix.Index(ctx, "go-git", schema.ExampleRepo{URL: goGitDir(t), ReferenceTag: "go-git"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed %d files, %d chunks in %v (%.0f chunks/s)", st.Files, st.Chunks, st.Duration, float64(st.Chunks)/st.Duration.Seconds())
	recall := map[Mode]float64{}
	for _, mode := range []Mode{Keyword, Vector, Hybrid} {
		var sum float64
		for _, l := range labelled {
			hits, err := SearchPatterns(ctx, store, emb, l.q, "", 10, mode)
			if err != nil {
				t.Fatal(err)
			}
			found := map[string]bool{}
			for _, h := range hits {
				for _, w := range l.want {
					if relevant(h.Payload["file_path"], []string{w}) {
						found[w] = true
					}
				}
			}
			sum += float64(len(found)) / float64(len(l.want))
		}
		recall[mode] = sum / float64(len(labelled))
	}
	t.Logf("recall@10 over %d questions: keyword %.3f, vector %.3f, hybrid %.3f", len(labelled), recall[Keyword], recall[Vector], recall[Hybrid])
	if recall[Hybrid] < max(recall[Keyword], recall[Vector]) {
		t.Errorf("hybrid recall %.3f is below the better single mode (%.3f, %.3f)", recall[Hybrid], recall[Keyword], recall[Vector])
	}
}

// BenchmarkIndexGoGit indexes go-git's source (about 100k lines with its
// tests) with the offline embedder into the embedded store. Target: ≥ 2,000
// chunks/s.
func BenchmarkIndexGoGit(b *testing.B) {
	dir := goGitDir(b)
	ctx := context.Background()
	for b.Loop() {
		store, err := OpenSQLite(filepath.Join(b.TempDir(), "b.db"))
		if err != nil {
			b.Fatal(err)
		}
		st, err := (&Indexer{Store: store, Embedder: Hashing{}, Examples: ExampleOptions{Root: dir}}).Index(ctx, "go-git", schema.ExampleRepo{URL: dir, ReferenceTag: "go-git"})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(st.Chunks)/st.Duration.Seconds(), "chunks/s")
		b.ReportMetric(float64(st.Chunks), "chunks")
		store.Close()
	}
}
