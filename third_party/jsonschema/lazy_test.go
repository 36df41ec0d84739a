package jsonschema

// Bridle's tests of its patch (third_party/README.md in Bridle): the drafts'
// metaschemas are compiled on the first Compile, not at init, and a schema is
// still validated against its metaschema.

import (
	"errors"
	"os"
	"strconv"
	"sync"
	"testing"
)

// compiledAtInit lists the drafts whose metaschema was compiled before any
// test ran: at init, which the patch exists to prevent.
var compiledAtInit []string

func TestMain(m *testing.M) {
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch != nil {
			compiledAtInit = append(compiledAtInit, d.String())
		}
	}
	os.Exit(m.Run())
}

func TestMetaschemasWaitForCompile(t *testing.T) {
	if len(compiledAtInit) > 0 {
		t.Fatalf("metaschemas compiled before any Compile (at init): %v", compiledAtInit)
	}
	c := NewCompiler()
	if err := c.AddResource("mem://s.json", map[string]any{"type": "string"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile("mem://s.json"); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch == nil {
			t.Fatalf("%s: metaschema not compiled by the first Compile", d)
		}
		for name, sch := range d.allVocabs {
			if sch == nil {
				t.Fatalf("%s: vocabulary %s not compiled by the first Compile", d, name)
			}
		}
	}
}

// TestFirstCompileValidatesAgainstMetaschema: the schema that triggers the
// metaschemas' compilation is itself checked against them, in every draft.
func TestFirstCompileValidatesAgainstMetaschema(t *testing.T) {
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		c := NewCompiler()
		c.DefaultDraft(d)
		if err := c.AddResource("mem://bad.json", map[string]any{"type": 5}); err != nil {
			t.Fatal(err)
		}
		_, err := c.Compile("mem://bad.json")
		var sve *SchemaValidationError
		if !errors.As(err, &sve) {
			t.Fatalf("%s: {\"type\": 5} compiled: err = %v, want a SchemaValidationError", d, err)
		}
	}
}

// TestConcurrentFirstCompile: many compilers at once share one compilation
// of the metaschemas (run with -race).
func TestConcurrentFirstCompile(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c := NewCompiler()
			url := "mem://s" + strconv.Itoa(i) + ".json"
			if err := c.AddResource(url, map[string]any{"minimum": "x"}); err != nil {
				errs <- err
				return
			}
			if _, err := c.Compile(url); err == nil {
				errs <- errors.New("minimum \"x\" compiled")
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
