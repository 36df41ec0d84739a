package prometheus

import (
	"slices"
	"testing"
)

// TestDefaultCollectorsOnFirstUse (Bridle's patch): nothing is registered
// at init; the default registry's first use registers the process and Go
// collectors, as upstream's init did; other registries get neither.
func TestDefaultCollectorsOnFirstUse(t *testing.T) {
	defaultRegistry.mtx.RLock()
	n := len(defaultRegistry.collectorsByID)
	defaultRegistry.mtx.RUnlock()
	if n != 0 {
		t.Fatalf("the default registry has %d collectors before its first use", n)
	}
	names := func(g Gatherer) []string {
		mfs, err := g.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, mf := range mfs {
			out = append(out, mf.GetName())
		}
		return out
	}
	got := names(DefaultGatherer)
	for _, want := range []string{"go_goroutines", "go_memstats_alloc_bytes", "process_cpu_seconds_total", "process_open_fds"} {
		if !slices.Contains(got, want) {
			t.Errorf("the default registry gathers no %s; got %v", want, got)
		}
	}
	// Registering the Go collector again is the duplicate upstream refuses.
	if err := Register(NewGoCollector()); err == nil {
		t.Error("a second Go collector registered with the default registry")
	}
	if got := names(NewRegistry()); len(got) != 0 {
		t.Errorf("a new registry gathers %v", got)
	}
}
