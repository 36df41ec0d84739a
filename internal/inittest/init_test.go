// Package inittest holds bridle's start-up floor. Every bridle command pays
// the initialisation of every package linked into the binary before main
// runs — the hook before each tool call of every agent, the sidecar with
// every agent session, render in every CI job — so work done at package
// init, Bridle's own or a dependency's, costs every command whether it uses
// that package or not.
//
// TestInitBudget builds bridle, runs `bridle version` with
// GODEBUG=inittrace=1 and holds the memory package initialisation
// allocates, in total and per package, under budgets. It measures bytes and
// allocations, not time: they are the same on a busy machine as on an idle
// one (but for map growth, a few percent), so the test cannot flake with
// load, and on this machine each page the heap touches at start costs
// several microseconds of page faults. The clock the trace reports is
// logged, never judged.
package inittest

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Budgets. Before they were set (December 2026) bridle's package
// initialisation allocated 3.98 MB in 37,850 allocations: santhosh-tekuri/
// jsonschema compiled its metaschemas (1.7 MB), goldmark compiled its
// regexps, Bridle's own packages compiled theirs. See third_party/README.md.
const (
	totalBytes  = 1024 << 10 // now ~0.90 MB
	totalAllocs = 6700       // now ~5,900
	// pkgBytes is the most any one package may allocate at init unless
	// named in knownHeavy.
	pkgBytes = 64 << 10
	// ownBytes is the most one of Bridle's own packages may allocate at
	// init: tables of constants, nothing built (regexps, templates,
	// parsers are made on first use: internal/lazyregexp, sync.OnceValue).
	ownBytes = 8 << 10
)

// knownHeavy are dependencies that do more at init than pkgBytes and have
// no cheaper alternative yet, each held at about its present size; and the
// patched copies in third_party, held well under what they did before.
var knownHeavy = map[string]int{
	// third_party: the protobuf registration of its ~400 message types
	// moved to first use (300 KB before the patch); what is left is its
	// enums' exported name maps (memory's optional Qdrant store)
	"github.com/qdrant/go-client/qdrant": 136 << 10,
	// its table of 2,231 HTML entities, a map literal (feed reads HTML)
	"golang.org/x/net/html": 140 << 10,
	// third_party: procfs's 22 regexps (97 KB before the patch) and
	// client_golang's default registry's collectors (46 KB) are built on
	// first use.
	"github.com/prometheus/procfs":                   8 << 10,
	"github.com/prometheus/client_golang/prometheus": 8 << 10,
	// third_party: reflection over its Schema type moved to first use
	// (81 KB before the patch)
	"github.com/google/jsonschema-go/jsonschema": 8 << 10,
	// third_party: its predefined versions are parsed on first use (69 KB
	// before the patch)
	"code.gitea.io/sdk/gitea": 8 << 10,
	// third_party: 1.7 MB before the patch
	"github.com/santhosh-tekuri/jsonschema/v6": 16 << 10,
	// third_party: 264 KB, 139 KB and 110 KB before the patch
	"github.com/yuin/goldmark/extension": 24 << 10,
	"github.com/yuin/goldmark/util":      24 << 10,
	"github.com/yuin/goldmark/parser":    24 << 10,
}

const module = "github.com/bridle-dev/bridle"

type pkgInit struct {
	pkg           string
	clock         float64 // ms
	bytes, allocs int
}

func TestInitBudget(t *testing.T) {
	inits := trace(t, build(t), "version")
	var bytesSum, allocsSum int
	var clock float64
	for _, in := range inits {
		bytesSum += in.bytes
		allocsSum += in.allocs
		clock += in.clock
	}
	slices.SortFunc(inits, func(a, b pkgInit) int { return cmp.Compare(b.bytes, a.bytes) })
	t.Logf("package initialisation of bridle version: %d packages, %d bytes in %d allocations, %.2f ms by the trace's clock (not judged)",
		len(inits), bytesSum, allocsSum, clock)
	if bytesSum > totalBytes || allocsSum > totalAllocs {
		t.Errorf("package initialisation allocates %d bytes in %d allocations, over the budget of %d bytes and %d allocations; the heaviest:\n%s",
			bytesSum, allocsSum, totalBytes, totalAllocs, top(inits, 12))
	}
	for _, in := range inits {
		limit, why := pkgBytes, "the per-package budget"
		if l, ok := knownHeavy[in.pkg]; ok {
			limit, why = l, "its budget in knownHeavy"
		} else if in.pkg == module || strings.HasPrefix(in.pkg, module+"/") {
			limit, why = ownBytes, "the budget of Bridle's own packages: make the work lazy (internal/lazyregexp, sync.OnceValue)"
		}
		if in.bytes > limit {
			t.Errorf("%s allocates %d bytes in %d allocations at init, over %s (%d bytes)", in.pkg, in.bytes, in.allocs, why, limit)
		}
	}
}

// TestParseTrace: the parser reads the runtime's line format.
func TestParseTrace(t *testing.T) {
	in := "init internal/bytealg @0.007 ms, 0.001 ms clock, 0 bytes, 0 allocs\n" +
		"some other line\n" +
		"init github.com/x/y @12 ms, 5.5 ms clock, 1700456 bytes, 21277 allocs\n"
	got, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []pkgInit{{"internal/bytealg", 0.001, 0, 0}, {"github.com/x/y", 5.5, 1700456, 21277}}
	if !slices.Equal(got, want) {
		t.Fatalf("parse = %+v, want %+v", got, want)
	}
	if _, err := parse(strings.NewReader("init a @1 ms, x ms clock, 1 bytes, 1 allocs\n")); err == nil {
		t.Fatal("a malformed line parsed")
	}
}

// build compiles bridle into a temporary directory.
func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bridle")
	cmd := exec.Command("go", "build", "-o", bin, module+"/cmd/bridle")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// trace runs bin with args under GODEBUG=inittrace=1 in a bare environment
// and returns what each package's initialisation did.
func trace(t *testing.T, bin string, args ...string) []pkgInit {
	t.Helper()
	cmd := exec.Command(bin, args...)
	home := t.TempDir()
	cmd.Env = []string{"GODEBUG=inittrace=1", "HOME=" + home, "PATH=" + os.Getenv("PATH"), "BRIDLE_STATE_DIR=" + home, "BRIDLE_CACHE_DIR=" + home}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	inits, err := parse(&stderr)
	if err != nil {
		t.Fatal(err)
	}
	if len(inits) < 50 {
		t.Fatalf("GODEBUG=inittrace=1 reported %d packages; is the trace's format still `init PKG @T ms, C ms clock, B bytes, A allocs`?\n%s", len(inits), stderr.String())
	}
	return inits
}

// parse reads the runtime's trace lines:
//
//	init PKG @T ms, C ms clock, B bytes, A allocs
func parse(r interface{ Read([]byte) (int, error) }) ([]pkgInit, error) {
	var out []pkgInit
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[6] != "clock," || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		clock, err1 := strconv.ParseFloat(f[4], 64)
		b, err2 := strconv.Atoi(f[7])
		a, err3 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("parse init trace line %q", sc.Text())
		}
		out = append(out, pkgInit{pkg: f[1], clock: clock, bytes: b, allocs: a})
	}
	return out, sc.Err()
}

// top lists the first n of inits, heaviest first.
func top(inits []pkgInit, n int) string {
	var b strings.Builder
	for _, in := range inits[:min(n, len(inits))] {
		fmt.Fprintf(&b, "  %-58s %9d bytes %6d allocs %7.3f ms\n", in.pkg, in.bytes, in.allocs, in.clock)
	}
	return b.String()
}

// TestPatchedCopies: every replace in go.mod names a copy under
// third_party/ that has a row in third_party/README.md and a change marked
// "Bridle's patch", and every copy there is replaced in (so it is used).
func TestPatchedCopies(t *testing.T) {
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../third_party/README.md")
	if err != nil {
		t.Fatal(err)
	}
	replaced := map[string]string{} // dir -> module
	for line := range strings.Lines(string(gomod)) {
		f := strings.Fields(line)
		if i := slices.Index(f, "=>"); i > 0 && i+1 < len(f) && strings.HasPrefix(f[i+1], "./third_party/") {
			replaced[strings.TrimPrefix(f[i+1], "./third_party/")] = f[i-1]
		}
	}
	if len(replaced) == 0 {
		t.Fatal("go.mod replaces nothing with a copy under third_party/")
	}
	entries, err := os.ReadDir("../../third_party")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			if _, ok := replaced[e.Name()]; !ok {
				t.Errorf("third_party/%s is not used by a replace in go.mod", e.Name())
			}
		}
	}
	for dir, mod := range replaced {
		if !strings.Contains(string(readme), fmt.Sprintf("| `%s` → `%s/` |", mod, dir)) {
			t.Errorf("third_party/README.md has no row for %s → %s/", mod, dir)
		}
		marked := false
		filepath.WalkDir(filepath.Join("../../third_party", dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || marked || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			marked = err == nil && bytes.Contains(b, []byte("Bridle's patch"))
			return err
		})
		if !marked {
			t.Errorf("third_party/%s has no change marked \"Bridle's patch\"", dir)
		}
		if _, err := os.Stat(filepath.Join("../../third_party", dir, "LICENSE")); err != nil {
			t.Errorf("third_party/%s keeps no LICENSE: %v", dir, err)
		}
	}
}
