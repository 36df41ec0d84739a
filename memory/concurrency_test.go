package memory

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bridle-dev/bridle/schema"
)

// TestConcurrentProcesses: 8 processes each write 500 memories to one store
// file while searching it. Afterwards there are exactly 4,000 rows, and no
// process saw an error ("database is locked" included).
func TestConcurrentProcesses(t *testing.T) {
	if p := os.Getenv("MEMORY_CHILD"); p != "" {
		childWriter(p, os.Getenv("MEMORY_DB"))
		return
	}
	if testing.Short() {
		t.Skip("spawns 8 processes")
	}
	db := filepath.Join(t.TempDir(), "memory.db")
	s, err := OpenSQLite(db)
	if err != nil {
		t.Fatal(err)
	}
	s.Ensure(context.Background(), "memory", Hashing{}.Model(), Hashing{}.Dim())
	s.Close()
	var wg sync.WaitGroup
	for p := range 8 {
		wg.Go(func() {
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentProcesses$")
			cmd.Env = append(os.Environ(), "MEMORY_CHILD="+strconv.Itoa(p), "MEMORY_DB="+db)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("process %d: %v\n%s", p, err, out)
			}
		})
	}
	wg.Wait()
	s, _ = OpenSQLite(db)
	defer s.Close()
	n, err := s.Count(context.Background(), "memory", Filter{})
	if err != nil || n != 4000 {
		t.Fatalf("rows = %d, err %v; want 4000", n, err)
	}
}

func childWriter(p, db string) {
	ctx := context.Background()
	s, err := OpenSQLite(db)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	defer s.Close()
	emb := Hashing{}
	for i := 0; i < 500; i++ {
		text := fmt.Sprintf("process %s decided thing number %d about the ledger service", p, i)
		v, _ := emb.Embed(ctx, []string{text})
		if err := s.Upsert(ctx, "memory", []Record{{ID: fmt.Sprintf("p%s-%d", p, i), Text: text, Vector: v[0],
			Payload: map[string]string{"kind": "decision"}}}); err != nil {
			fmt.Println("write:", err)
			os.Exit(1)
		}
		if i%10 == 0 {
			if _, err := s.Search(ctx, "memory", Query{Text: "ledger decision", Vector: v[0], K: 5}); err != nil {
				fmt.Println("search:", err)
				os.Exit(1)
			}
		}
	}
}

// TestKill9DuringIndexing: a re-index killed with SIGKILL midway leaves the
// previous index answering, and the next run cleans up after it.
func TestKill9DuringIndexing(t *testing.T) {
	if os.Getenv("MEMORY_INDEX_CHILD") != "" {
		// The child writes a new set for the tag and is killed once part of
		// it is in the file, invisible, before the swap.
		s, _ := OpenSQLite(os.Getenv("MEMORY_DB"))
		var recs []Record
		for i := 0; i < 20000; i++ {
			text := fmt.Sprintf("replacement chunk %d about payouts", i)
			v, _ := Hashing{}.Embed(context.Background(), []string{text})
			recs = append(recs, Record{ID: fmt.Sprintf("new-%d", i), Text: text, Vector: v[0], Payload: map[string]string{"reference_tag": "tag"}})
		}
		go s.Replace(context.Background(), PatternsCollection, "reference_tag", "tag", Records(recs))
		for {
			var staged int
			s.db.QueryRow(`SELECT count(*) FROM records WHERE live = 0`).Scan(&staged)
			if staged > 0 {
				fmt.Println("HALFWAY")
				os.Stdout.Sync()
				time.Sleep(time.Minute) // the parent kills us here
			}
			time.Sleep(time.Millisecond)
		}
	}
	if testing.Short() {
		t.Skip("indexes a real repository in a child process")
	}
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "memory.db")
	s, _ := OpenSQLite(db)
	defer s.Close()
	small := exampleRepo(t)
	old, err := (&Indexer{Store: s, Embedder: Hashing{}, Examples: ExampleOptions{Root: small}}).Index(ctx, "go-git", schema.ExampleRepo{URL: small, ReferenceTag: "tag"})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9DuringIndexing$")
	cmd.Env = append(os.Environ(), "MEMORY_INDEX_CHILD=1", "MEMORY_DB="+db)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	deadline := time.Now().Add(60 * time.Second)
	var seen string
	for !strings.Contains(seen, "HALFWAY") && time.Now().Before(deadline) {
		n, err := out.Read(buf)
		seen += string(buf[:n])
		if err != nil {
			break
		}
	}
	cmd.Process.Kill() // SIGKILL
	cmd.Wait()
	if !strings.Contains(seen, "HALFWAY") {
		t.Fatalf("child never reached the middle: %q", seen)
	}
	var staged int
	s.db.QueryRow(`SELECT count(*) FROM records WHERE live = 0`).Scan(&staged)
	t.Logf("the killed run left %d invisible chunks", staged)
	if staged == 0 {
		t.Fatal("the child was killed before writing anything; the test proves nothing")
	}
	f := Filter{Fields: map[string]string{"reference_tag": "tag"}}
	if n, _ := s.Count(ctx, PatternsCollection, f); n != old.Chunks {
		t.Fatalf("after kill -9: %d chunks answer, want the old %d", n, old.Chunks)
	}
	hits, err := SearchPatterns(ctx, s, Hashing{}, "where are payouts validated", "", 3, Hybrid)
	if err != nil || len(hits) == 0 || hits[0].Payload["file_path"] != "internal/service/payout.go" {
		t.Fatalf("old index does not answer: %v %+v", err, hits)
	}
	// The next index run removes the leftovers and swaps cleanly.
	again, err := (&Indexer{Store: s, Embedder: Hashing{}, Examples: ExampleOptions{Root: small}}).Index(ctx, "go-git", schema.ExampleRepo{URL: small, ReferenceTag: "tag"})
	if err != nil {
		t.Fatal(err)
	}
	s.db.QueryRow(`SELECT count(*) FROM records WHERE live = 0`).Scan(&staged)
	if n, _ := s.Count(ctx, PatternsCollection, f); n != again.Chunks || staged != 0 {
		t.Errorf("after the next run: %d chunks, %d leftovers", n, staged)
	}
}
