package jsonc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestSetKeepsWhatTheUserWrote(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty file", "", "{\n  \"mcpServers\": {\n    \"bridle\": {\n      \"command\": \"bridle\"\n    }\n  }\n}\n"},
		{"comments, trailing commas, tabs", "{\n\t// mine\n\t\"theme\": \"dark\", // keep\n\t\"mcpServers\": {\n\t\t\"other\": {\"command\": \"x\"}, // other\n\t},\n}\n",
			"{\n\t// mine\n\t\"theme\": \"dark\", // keep\n\t\"mcpServers\": {\n\t\t\"other\": {\"command\": \"x\"}, // other\n\t\t\"bridle\": {\n\t\t\t\"command\": \"bridle\"\n\t\t},\n\t},\n}\n"},
		{"replace in place", "{\n  \"mcpServers\": {\n    \"bridle\": {\"command\": \"old\"}, // mine\n    \"z\": 1\n  }\n}\n",
			"{\n  \"mcpServers\": {\n    \"bridle\": {\n      \"command\": \"bridle\"\n    }, // mine\n    \"z\": 1\n  }\n}\n"},
		{"one line", `{"a": 1}`, "{\"a\": 1, \"mcpServers\": {\n    \"bridle\": {\n      \"command\": \"bridle\"\n    }\n  }}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse("f.json", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Set(map[string]string{"command": "bridle"}, "mcpServers", "bridle"); err != nil {
				t.Fatal(err)
			}
			if got := string(d.Bytes()); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			again, err := Parse("f.json", d.Bytes())
			if err != nil {
				t.Fatalf("the result does not parse: %v", err)
			}
			if raw, ok := again.Get("mcpServers", "bridle", "command"); !ok || string(raw) != `"bridle"` {
				t.Errorf("Get = %s %v", raw, ok)
			}
		})
	}
}

func TestDelete(t *testing.T) {
	d, err := Parse("f.json", []byte("{\n  \"a\": 1, // one\n  \"b\": 2,\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !d.Delete("b") || d.Delete("b") || d.Delete("x", "y") {
		t.Fatal("Delete reported wrongly")
	}
	if got, want := string(d.Bytes()), "{\n  \"a\": 1, // one\n}\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if keys := d.Keys(); len(keys) != 1 || keys[0] != "a" {
		t.Errorf("Keys = %v", keys)
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"[1, 2]", "f.json: the file holds a JSON array"},
		{"{\n  \"a\": ,\n}", "f.json:2:8: "},
		{"{\"a\": 1", "f.json:1:"},
		{"null", "JSON null"},
	} {
		_, err := Parse("f.json", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
	d, _ := Parse("f.json", []byte(`{"mcpServers": ["not", "an object"]}`))
	if err := d.Set(1, "mcpServers", "bridle"); !errors.Is(err, ErrNotObject) {
		t.Errorf("Set through an array = %v, want ErrNotObject", err)
	}
	if got := string(d.Bytes()); got != "{\"mcpServers\": [\"not\", \"an object\"]}\n" {
		t.Errorf("a refused Set changed the file: %s", got)
	}
	if _, err := Parse("f.json", make([]byte, MaxSize+1)); err == nil {
		t.Error("an oversized file was taken")
	}
}

func FuzzSet(f *testing.F) {
	for _, s := range []string{"", "{}", "{\n\t// c\n\t\"a\": {\"b\": 1,},\n}", `{"mcpServers": null}`, "/* x */ {\"k\": [1,2,],}", `{"a": "\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse("f.json", data)
		if err != nil {
			return
		}
		before, _ := d.Get()
		if err := d.Set(map[string]any{"command": "bridle", "args": []string{"mcp"}}, "mcpServers", "bridle"); err != nil {
			if !errors.Is(err, ErrNotObject) {
				t.Fatalf("Set: %v", err)
			}
			return
		}
		out := d.Bytes()
		again, err := Parse("f.json", out)
		if err != nil {
			t.Fatalf("the merged file does not parse: %v\n%s", err, out)
		}
		raw, ok := again.Get("mcpServers", "bridle", "command")
		if !ok || string(raw) != `"bridle"` {
			t.Fatalf("the entry is not there: %s", out)
		}
		// Every other member is kept.
		var was, now map[string]json.RawMessage
		if json.Unmarshal(before, &was) == nil {
			after, _ := again.Get()
			_ = json.Unmarshal(after, &now)
			for k, v := range was {
				if k != "mcpServers" && string(now[k]) != string(v) {
					t.Fatalf("member %q changed: %s → %s", k, v, now[k])
				}
			}
		}
	})
}
