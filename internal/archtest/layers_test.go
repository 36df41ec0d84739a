// Package archtest checks the package layering that ARCHITECTURE.md states.
package archtest

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/bridle-dev/bridle/"

// layers reads the layers block of ARCHITECTURE.md: package → layer, with
// test-support packages at -1.
func layers(t *testing.T) map[string]int {
	t.Helper()
	b, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "<!-- layers:begin")
	block, _, ok2 := strings.Cut(block, "<!-- layers:end -->")
	if !ok || !ok2 {
		t.Fatal("ARCHITECTURE.md has no layers block")
	}
	out := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(block))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		n := -1
		if f[0] != "test" {
			if n, err = strconv.Atoi(f[0]); err != nil {
				continue
			}
		}
		for _, p := range f[1:] {
			if _, dup := out[p]; dup {
				t.Errorf("ARCHITECTURE.md names %s in two layers", p)
			}
			out[p] = n
		}
	}
	return out
}

// TestLayers: every package is in a layer, and imports only packages of
// lower layers; only tests import test-support packages.
func TestLayers(t *testing.T) {
	layer := layers(t)
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		l, ok := layer[pkg]
		if !ok {
			t.Errorf("%s is in no layer of ARCHITECTURE.md: add it to the layers block", pkg)
			continue
		}
		for _, imp := range f[1:] {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			dl, ok := layer[dep]
			switch {
			case !ok:
				// reported as a package of its own
			case dl == -1 && l != -1:
				t.Errorf("%s imports the test-support package %s", pkg, dep)
			case l != -1 && dl >= l:
				t.Errorf("%s (layer %d) imports %s (layer %d): a package imports only lower layers (ARCHITECTURE.md)", pkg, l, dep, dl)
			}
		}
	}
}
