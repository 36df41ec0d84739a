package upstream

// Issue 23, item 1: an upstream started with a token that puts it in its
// tools' metadata has it served to every agent in tools/list, unless the
// metadata goes through the redactor on import and on every list_changed.

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/internal/upstreamtest"
	"github.com/bridle-dev/bridle/redact"
)

// leakToken is what GITEA_ACCESS_TOKEN: secret:gitea-bot reads: a Gitea
// access token, 40 hex digits.
const leakToken = "5f1c0a9e3b7d4c2a8e6f0b1d3c5a7e9f2b4d6a8c"

// noLeak fails when v (decoded JSON) holds, in a string or a key, a form of
// leakToken the fake shows, or 12 bytes of it in any case, line breaks
// left out.
func noLeak(t *testing.T, what string, v any) {
	t.Helper()
	var walk func(any)
	check := func(s string) {
		flat := strings.ToLower(strings.NewReplacer("\r", "", "\n", "").Replace(s))
		for _, f := range upstreamtest.Leaks(leakToken) {
			if f = strings.ToLower(strings.TrimRight(strings.ReplaceAll(f, "\n", ""), "=")); strings.Contains(flat, f) {
				t.Errorf("%s: a form of the token is served: %q", what, s)
				return
			}
		}
		for i := 0; i+12 <= len(leakToken); i++ {
			if strings.Contains(flat, leakToken[i:i+12]) {
				t.Errorf("%s: 12 bytes of the token are served: %q", what, s)
				return
			}
		}
	}
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			check(x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				check(k)
				walk(e)
			}
		}
	}
	walk(v)
}

// asJSON is v as decoded JSON.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestToolMetadataIsMasked(t *testing.T) {
	b := newBridle(t)
	startFake(t, b, func(c *Config) {
		c.Secrets = map[string]func() (string, error){upstreamtest.LeakEnv: func() (string, error) { return leakToken, nil }}
	})
	changed := make(chan struct{}, 10)
	cs := b.connect(t, "claude-code", changed)
	list := func(what string) map[string]*sdk.Tool {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		noLeak(t, what, asJSON(t, res))
		out := map[string]*sdk.Tool{}
		for _, d := range res.Tools {
			out[d.Name] = d
		}
		return out
	}
	tools := list("tools/list")
	leaky := tools["fake_leaky"]
	if leaky == nil || !strings.Contains(leaky.Title, redact.Mask) || !strings.Contains(leaky.Description, redact.Mask) ||
		!strings.Contains(string(must(json.Marshal(leaky.InputSchema))), redact.Mask) {
		t.Fatalf("fake_leaky is not served masked: %+v", leaky)
	}
	for _, name := range []string{"fake_leaky_key", "fake_t" + leakToken} {
		if tools[name] != nil {
			t.Errorf("%s is served: a schema key or a name that holds a secret cannot be masked; the tool is refused", name)
		}
	}
	if _, ok := registered(b, "fake_leaky"); !ok {
		t.Fatal("fake_leaky not registered")
	}
	noLeak(t, "the registered tools", asJSON(t, b.srv.Tools()))

	// On list_changed the new listing goes through the redactor too.
	if msg, isErr := callText(t, cs, "fake_add_leaky", map[string]any{"name": "later"}); isErr {
		t.Fatal(msg)
	}
	deadline := time.After(10 * time.Second)
	for tools["fake_later"] == nil {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("no tools/list_changed with fake_later")
		}
		tools = list("tools/list after list_changed")
	}
	if later := tools["fake_later"]; !strings.Contains(later.Title, redact.Mask) {
		t.Errorf("fake_later's title (from its annotations) is not masked: %q", later.Title)
	}

	// And its results, as before.
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "fake_leaky", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	noLeak(t, "the result", asJSON(t, res))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
