package compiler

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/bridle-dev/bridle/internal/mdsafe/mdtest"
	"github.com/bridle-dev/bridle/renderers"
	"github.com/bridle-dev/bridle/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const testCommit = "0123456789abcdef0123456789abcdef01234567"

// TestGolden compiles each testdata/golden/*.txtar case's bridle.yaml (the
// example case reads examples/runic-gateway/bridle.yaml), renders every
// agent twice to prove the output is byte-identical, and compares each file
// with the archive. go test ./compiler -run Golden -update rewrites them.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.txtar")
	if len(files) < 3 {
		t.Fatalf("found %d golden cases", len(files))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var src []byte
			var input []txtar.File
			for _, f := range ar.Files {
				if f.Name == "bridle.yaml" {
					src = f.Data
					input = append(input, f)
				}
			}
			if src == nil {
				if src, err = os.ReadFile("../examples/runic-gateway/bridle.yaml"); err != nil {
					t.Fatal(err)
				}
			}
			in := Input{Name: "bridle.yaml", Data: src, Source: Source{Kind: "git", Path: "bridle.yaml", Ref: "main", Commit: testCommit}}
			snap, diags := CompileBytes(in, "test")
			if snap == nil {
				t.Fatalf("compile failed:\n%s", diags.Error())
			}
			again, _ := CompileBytes(in, "test")
			a, _ := snap.JSON()
			b, _ := again.JSON()
			if !bytes.Equal(a, b) {
				t.Fatal("two compiles of the same input differ")
			}
			got := input
			for _, r := range snap.Renders {
				got = append(got, txtar.File{Name: r.Path, Data: []byte(r.Content)})
				checkOutline(t, &snap.Document, r)
			}
			if *update {
				ar.Files = got
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want := map[string]string{}
			for _, f := range ar.Files {
				want[f.Name] = string(f.Data)
			}
			for _, f := range got {
				w, ok := want[f.Name]
				if !ok {
					t.Errorf("%s: not in the golden file (run with -update)", f.Name)
					continue
				}
				if diff := cmp.Diff(w, string(f.Data)); diff != "" {
					t.Errorf("%s differs from golden (-want +got):\n%s", f.Name, diff)
				}
				delete(want, f.Name)
			}
			for name := range want {
				t.Errorf("%s: in the golden file but not rendered", name)
			}
		})
	}
}

// checkOutline reads a render as GitHub does and checks that its structure
// is the one Bridle wrote: the headings are exactly the sections the
// renderer emitted, and the only HTML is the generated header — whatever
// the rules' text holds.
func checkOutline(t *testing.T, doc *schema.Document, r renderers.File) {
	t.Helper()
	o := mdtest.Parse(renderers.StripFrontMatter(r.Content))
	var want []string
	for _, s := range renderers.Explain(doc, r).Sections {
		want = append(want, strings.Repeat("#", s.Level)+" "+s.Heading)
	}
	if !slices.Equal(o.Headings, want) {
		t.Errorf("%s: headings as read by a markdown parser:\n%q\nsections the renderer wrote:\n%q", r.Path, o.Headings, want)
	}
	if !slices.Equal(o.Blocks, []string{"HTML block"}) {
		t.Errorf("%s: blocks besides the header: %q", r.Path, o.Blocks)
	}
}

// TestCacheRoundTrip: a snapshot taken out of the cache is the one put in,
// as its canonical JSON says, for every golden case and example, with and
// without a reviewed history; and the snapshot's types hold nothing gob
// would not carry faithfully.
func TestCacheRoundTrip(t *testing.T) {
	var docs [][]byte
	files, _ := filepath.Glob("testdata/golden/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name == "bridle.yaml" {
				docs = append(docs, f.Data)
			}
		}
	}
	examples, _ := filepath.Glob("../examples/*/bridle.yaml")
	for _, e := range examples {
		b, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b)
	}
	if len(docs) < 4 {
		t.Fatalf("found %d documents", len(docs))
	}
	c := Cache{Dir: t.TempDir()}
	for i, src := range docs {
		in := Input{Name: "bridle.yaml", Data: src, Source: Source{Kind: "git", Path: "bridle.yaml", Ref: "main", Commit: testCommit}}
		snap, diags := CompileBytes(in, "test")
		if snap == nil {
			t.Fatalf("document %d: %s", i, diags.Error())
		}
		for _, approval := range []*Approval{nil, {}, {Baseline: testCommit, Unapproved: []schema.Unapproved{{Subject: "guardrail x", Commit: testCommit}}}} {
			snap.Approval = approval
			key := fmt.Sprintf("k%d-%v", i, approval != nil)
			if approval != nil && approval.Baseline != "" {
				key += "-b"
			}
			c.Put(key, snap)
			got := c.Get(key)
			if got == nil {
				t.Fatalf("document %d: nothing came back", i)
			}
			want, _ := snap.JSON()
			have, _ := got.JSON()
			if !bytes.Equal(want, have) {
				t.Errorf("document %d, approval %+v: the cached snapshot differs:\n%s", i, approval, cmp.Diff(string(want), string(have)))
			}
		}
	}
	// No renders at all: still [] in its JSON.
	empty := &Snapshot{ContentHash: "sha256:x", Renders: []renderers.File{}}
	c.Put("empty", empty)
	if got, _ := c.Get("empty").JSON(); !strings.Contains(string(got), `"renders": []`) {
		t.Errorf("a snapshot with no renders came back as:\n%s", got)
	}
	// What gob would not carry faithfully: an interface (its types must be
	// registered), a pointer to anything but a struct (a pointer to false
	// comes back nil), a slice that JSON writes even when empty (it comes
	// back nil: null) unless Get restores it.
	seen := map[reflect.Type]bool{}
	var walk func(ty reflect.Type, path string)
	walk = func(ty reflect.Type, path string) {
		switch ty.Kind() {
		case reflect.Interface:
			t.Errorf("%s is an interface", path)
		case reflect.Pointer:
			if ty.Elem().Kind() != reflect.Struct {
				t.Errorf("%s is a pointer to a %s", path, ty.Elem().Kind())
			}
			walk(ty.Elem(), path)
		case reflect.Slice, reflect.Array:
			walk(ty.Elem(), path+"[]")
		case reflect.Map:
			walk(ty.Key(), path+"{key}")
			walk(ty.Elem(), path+"{}")
		case reflect.Struct:
			if seen[ty] || ty == reflect.TypeFor[time.Time]() {
				return
			}
			seen[ty] = true
			for i := range ty.NumField() {
				f := ty.Field(i)
				if !f.IsExported() {
					continue
				}
				tag := f.Tag.Get("json")
				if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() != reflect.Uint8 && tag != "-" &&
					!strings.Contains(tag, "omitempty") && !strings.Contains(tag, "omitzero") && path+"."+f.Name != "Snapshot.Renders" {
					t.Errorf("%s.%s: JSON writes it when empty, gob brings it back nil; restore it in Cache.Get", path, f.Name)
				}
				walk(f.Type, path+"."+f.Name)
			}
		}
	}
	walk(reflect.TypeFor[Snapshot](), "Snapshot")
}
