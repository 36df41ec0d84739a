package memory

import (
	"fmt"
	"slices"
	"testing"
)

func hit(path string, score float64) Hit {
	return Hit{Record: Record{ID: fmt.Sprintf("%s:%g", path, score), Payload: map[string]string{"file_path": path}}, Score: score}
}

func paths(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Payload["file_path"])
	}
	return out
}

// TestByFile: files rank by their best chunk and a share of the rest, a
// test file with the file it tests, a path the question names is raised,
// and the order is the same however often it is computed.
func TestByFile(t *testing.T) {
	for _, c := range []struct {
		name  string
		query string
		hits  []Hit
		want  []string
	}{
		{"one strong chunk beats two weak ones", "payouts",
			[]Hit{hit("a.go", 0.032), hit("b.md", 0.030), hit("b.md", 0.006)},
			[]string{"a.go", "b.md", "b.md"}},
		{"several good chunks beat one a little better", "payouts",
			[]Hit{hit("a.go", 0.032), hit("b.go", 0.030), hit("b.go", 0.029)},
			[]string{"b.go", "b.go", "a.go"}},
		{"a test file adds to the file it tests", "payouts",
			[]Hit{hit("a.go", 0.032), hit("b.go", 0.030), hit("b_test.go", 0.025)},
			[]string{"b.go", "b_test.go", "a.go"}},
		{"the path the question names", "calling a hook",
			[]Hit{hit("repo.go", 0.032), hit("hook.go", 0.030)},
			[]string{"hook.go", "repo.go"}},
		{"a compound directory name", "read the commit graph",
			[]Hit{hit("plumbing/object/commit.go", 0.032), hit("plumbing/format/commitgraph/file.go", 0.030)},
			[]string{"plumbing/format/commitgraph/file.go", "plumbing/object/commit.go"}},
		{"ties by path", "x",
			[]Hit{hit("b.go", 0.01), hit("a.go", 0.01)},
			[]string{"a.go", "b.go"}},
	} {
		got := byFile(Stems(c.query), Expand(c.query), c.hits)
		if !slices.Equal(paths(got), c.want) {
			t.Errorf("%s: byFile(%q) = %v, want %v", c.name, c.query, paths(got), c.want)
		}
		if again := byFile(Stems(c.query), Expand(c.query), c.hits); !slices.Equal(paths(again), paths(got)) {
			t.Errorf("%s: not deterministic: %v, %v", c.name, paths(got), paths(again))
		}
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		path, term string
		want       float64
	}{
		{"plumbing/format/idxfile/decoder.go", "idx", 1},
		{"plumbing/format/idxfile/decoder.go", "file", 1},
		{"hook.go", "hook", 1},
		{"bash_completions.go", "completion", 1},
		{"repo_key_test.go", "test", 0},
		{"ab.go", "a", 0},       // too short to be a part
		{"server.go", "rve", 0}, // inside a part, not at an end
	} {
		if got := names(pathTerms(c.path), c.term); got != c.want {
			t.Errorf("names(%s, %q) = %v, want %v", c.path, c.term, got, c.want)
		}
	}
}

// BenchmarkByFile ranks the 20 candidates of a pattern search by file, all
// in different files (the most work). Paths are split per call: twenty of
// a module cache's (github.com/x/y@v1.2.3/...) take ~150 µs against ~35.
func BenchmarkByFile(b *testing.B) {
	var hits []Hit
	for i := range 20 {
		hits = append(hits, hit(fmt.Sprintf("plumbing/format/packfile/file_%d_test.go", i), 0.03-float64(i)*0.001))
	}
	q := "compute a binary delta between two objects when packing"
	own, exp := Stems(q), Expand(q) // SearchPatterns has them already
	for b.Loop() {
		byFile(own, exp, hits)
	}
}
