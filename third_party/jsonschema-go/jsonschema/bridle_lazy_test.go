package jsonschema

import "testing"

// TestSchemaFieldsBuiltOnFirstUse (Bridle's patch): the tables upstream
// built in init are empty until first use, then what upstream built.
// (The package's other tests, upstream's, run on the lazily built tables.)
func TestSchemaFieldsBuiltOnFirstUse(t *testing.T) {
	if len(schemaFieldInfos) != 0 || len(schemaFieldMap) != 0 {
		t.Fatalf("built at init: %d infos, %d map entries", len(schemaFieldInfos), len(schemaFieldMap))
	}
	infos, m := lazySchemaFieldInfos(), lazySchemaFieldMap()
	if len(infos) < 40 || len(m) < 40 {
		t.Fatalf("after first use: %d infos, %d map entries", len(infos), len(m))
	}
	for _, name := range []string{"properties", "items", "dependencies", "$ref", "additionalProperties"} {
		if _, ok := m[name]; !ok {
			t.Errorf("no field for %q", name)
		}
	}
	for i := 1; i < len(infos); i++ {
		if infos[i-1].jsonName > infos[i].jsonName {
			t.Fatalf("not sorted by JSON name at %d: %q > %q", i, infos[i-1].jsonName, infos[i].jsonName)
		}
	}
}
