// Command memsearch benchmarks the embedded memory store at scale.
//
//	memsearch -build -db DB -n 100000   index n real code chunks (from the Go module cache)
//	memsearch -search -db DB            hybrid/vector/keyword latency of pattern search, RSS of the searching process
//	memsearch -naive -db DB             the same vectors scanned naively as float32, for comparison
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/bridle-dev/bridle/memory"
)

func main() {
	build := flag.Bool("build", false, "build the store")
	search := flag.Bool("search", false, "measure searches")
	naive := flag.Bool("naive", false, "measure a naive float32 scan")
	db := flag.String("db", "memsearch.db", "store file")
	n := flag.Int("n", 100000, "chunks to index")
	queries := flag.Int("queries", 300, "queries to time")
	src := flag.String("src", "", "source tree to take code from (default: the Go module cache)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the searches to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		must(err)
		must(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	ctx := context.Background()
	if *src == "" {
		*src = goModCache()
	}
	switch {
	case *build:
		must(buildStore(ctx, *db, *src, *n))
	case *search:
		must(measure(ctx, *db, *queries))
	case *naive:
		must(measureNaive(ctx, *src, *n, *queries))
	default:
		flag.Usage()
		os.Exit(2)
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "memsearch:", err)
		os.Exit(1)
	}
}

func goModCache() string {
	if d := os.Getenv("GOMODCACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, "go", "pkg", "mod")
}

// chunks walks src for Go files and chunks them, up to n chunks.
func chunks(src string, n int) []memory.Chunk {
	var out []memory.Chunk
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= n {
			if len(out) >= n {
				return fs.SkipAll
			}
			return nil
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "cache" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || len(data) > 256<<10 {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		out = append(out, memory.ChunkFile(rel, data)...)
		return nil
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func buildStore(ctx context.Context, db, src string, n int) error {
	os.Remove(db)
	s, err := memory.OpenSQLite(db)
	if err != nil {
		return err
	}
	defer s.Close()
	emb := memory.Hashing{}
	if err := s.Ensure(ctx, memory.PatternsCollection, emb.Model(), emb.Dim()); err != nil {
		return err
	}
	cs := chunks(src, n)
	t0 := time.Now()
	for i := 0; i < len(cs); i += 2000 {
		part := cs[i:min(i+2000, len(cs))]
		texts := make([]string, len(part))
		for j, c := range part {
			texts[j] = "file: " + c.Path + "\n" + c.Text
		}
		vecs, _ := emb.Embed(ctx, texts)
		recs := make([]memory.Record, len(part))
		for j, c := range part {
			recs[j] = memory.Record{ID: fmt.Sprintf("%s:%d", c.Path, c.Start), Text: texts[j], Vector: vecs[j],
				Payload: map[string]string{"file_path": c.Path, "arch_tag": "bench", "reference_tag": "bench"}}
		}
		if err := s.Upsert(ctx, memory.PatternsCollection, recs); err != nil {
			return err
		}
	}
	fmt.Printf("built %d chunks (%d dims) in %v (%.0f chunks/s)\n", len(cs), emb.Dim(), time.Since(t0).Round(time.Millisecond), float64(len(cs))/time.Since(t0).Seconds())
	return nil
}

var queryTexts = []string{
	"parse a refspec", "decode pack index", "http basic auth token", "retry with exponential backoff",
	"open a sqlite database connection", "render markdown to html", "json schema validation error",
	"graceful shutdown on sigterm", "rate limit requests per client", "read yaml configuration file",
	"grpc server interceptor", "compute sha256 of a file", "walk a directory tree", "parse command line flags",
	"websocket connection upgrade", "context cancellation timeout", "template execution with functions",
	"lru cache eviction", "merge two sorted slices", "tls certificate verification",
}

func rss() string {
	b, _ := os.ReadFile("/proc/self/status")
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS") || strings.HasPrefix(l, "VmHWM") {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(out, ", ")
}

func pct(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(float64(len(ds))*p))]
}

func measure(ctx context.Context, db string, q int) error {
	s, err := memory.OpenSQLite(db)
	if err != nil {
		return err
	}
	defer s.Close()
	emb := memory.Hashing{}
	n, _ := s.Count(ctx, memory.PatternsCollection, memory.Filter{})
	t0 := time.Now()
	v0, _ := emb.Embed(ctx, []string{"warm up"})
	if _, err := s.Search(ctx, memory.PatternsCollection, memory.Query{Text: "warm up", Vector: v0[0], K: 10, Mode: memory.Vector}); err != nil {
		return err
	}
	fmt.Printf("store: %d chunks; first search (loads the index) %v\n", n, time.Since(t0).Round(time.Millisecond))
	for _, mode := range []memory.Mode{memory.Hybrid, memory.Vector, memory.Keyword} {
		var ds []time.Duration
		for i := 0; i < q; i++ {
			text := queryTexts[i%len(queryTexts)]
			t := time.Now()
			if _, err := memory.SearchPatterns(ctx, s, emb, text, "", 10, mode); err != nil {
				return err
			}
			ds = append(ds, time.Since(t))
		}
		fmt.Printf("%-8s search (SearchPatterns: embed, expand, search, k=10): p50 %v, p99 %v over %d queries\n", mode, pct(ds, 0.5).Round(10*time.Microsecond), pct(ds, 0.99).Round(10*time.Microsecond), q)
	}
	fmt.Printf("searching process: %s\n", rss())
	return nil
}

// measureNaive scans the same number of float32 vectors exhaustively.
func measureNaive(ctx context.Context, src string, n, q int) error {
	cs := chunks(src, n)
	emb := memory.Hashing{}
	texts := make([]string, len(cs))
	for i, c := range cs {
		texts[i] = "file: " + c.Path + "\n" + c.Text
	}
	vecs, _ := emb.Embed(ctx, texts)
	flat := make([]float32, 0, len(vecs)*emb.Dim())
	for _, v := range vecs {
		flat = append(flat, v...)
	}
	vecs = nil
	var ds []time.Duration
	for i := 0; i < q; i++ {
		qv, _ := emb.Embed(ctx, []string{queryTexts[i%len(queryTexts)]})
		t := time.Now()
		best, bestI := float32(math.Inf(-1)), -1
		dim := emb.Dim()
		for j := 0; j+dim <= len(flat); j += dim {
			var dot float32
			row := flat[j : j+dim]
			for k, x := range qv[0] {
				dot += x * row[k]
			}
			if dot > best {
				best, bestI = dot, j/dim
			}
		}
		_ = bestI
		ds = append(ds, time.Since(t))
	}
	fmt.Printf("naive float32 scan of %d x %d: p50 %v, p99 %v (%d MB of vectors)\n", len(flat)/emb.Dim(), emb.Dim(),
		pct(ds, 0.5).Round(10*time.Microsecond), pct(ds, 0.99).Round(10*time.Microsecond), len(flat)*4>>20)
	return nil
}
