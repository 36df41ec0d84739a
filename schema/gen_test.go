package schema

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files and the committed schema")

// TestSchemaDrift fails when bridle.schema.json and the Go types disagree.
// Run `go test ./schema -run Drift -update` after changing the types.
func TestSchemaDrift(t *testing.T) {
	got, err := Generate(".")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("bridle.schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, committed) {
		t.Fatal("bridle.schema.json is out of date with the Go types; run: go test ./schema -run Drift -update")
	}
}
