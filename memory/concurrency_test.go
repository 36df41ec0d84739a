package memory

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
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
