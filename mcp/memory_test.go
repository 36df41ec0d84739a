package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/memory"
)

func memoryFixture(t *testing.T) *fixture {
	t.Helper()
	// The example's first pattern example points at a local directory.
	ex := t.TempDir()
	os.MkdirAll(filepath.Join(ex, "internal", "service"), 0o755)
	os.MkdirAll(filepath.Join(ex, "internal", "handler"), 0o755)
	os.WriteFile(filepath.Join(ex, "internal", "handler", "http.go"), []byte("package handler\n\n// Serve decodes and calls the service.\nfunc Serve() {}\n"), 0o644)
	os.WriteFile(filepath.Join(ex, "internal", "service", "payout.go"), []byte("package service\n\n// CreatePayout validates and stores a payout.\nfunc CreatePayout() error { return nil }\n"), 0o644)
	dir := t.TempDir()
	src, _ := os.ReadFile(filepath.Join(example, "bridle.yaml"))
	src = []byte(strings.Replace(string(src), "https://git.runic.example/platform/payouts-api.git\n          ref: main", ex, 1))
	commitRules(t, dir, src)
	db := filepath.Join(t.TempDir(), "memory.db")
	return newFixture(t, Options{Rules: dir, Examples: memory.ExampleOptions{Root: ex}, Memory: func() (memory.Store, memory.Embedder, error) {
		s, err := memory.OpenSQLite(db)
		return s, memory.Hashing{}, err
	}})
}

func TestMemoryTools(t *testing.T) {
	f := memoryFixture(t)
	claude := f.connect(t, "claude-code", "", nil)
	codex := f.connect(t, "codex-mcp-client", "", nil)
	ctx := context.Background()

	res, err := claude.CallTool(ctx, &sdk.CallToolParams{Name: "remember", Arguments: map[string]any{
		"text": "Payout retries use exponential backoff capped at 5 minutes.", "kind": "decision", "tags": []string{"payouts"}}})
	if err != nil || res.IsError {
		t.Fatalf("remember: %v %+v", err, res)
	}
	var mv MemoryView
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &mv)

	// Another agent's session recalls it.
	got, isErr := callText(t, codex, "recall", map[string]any{"query": "how do payout retries back off", "k": 3})
	if isErr || !strings.Contains(got, mv.ID) || !strings.Contains(got, `"agent":"claude"`) {
		t.Errorf("recall: %s", got)
	}
	for _, bad := range []map[string]any{
		{"text": strings.Repeat("x", memory.MaxMemoryText+10), "kind": "note"},
		{"text": "x", "kind": "gossip"},
		{"text": "   ", "kind": "note"},
	} {
		if got, isErr := callText(t, claude, "remember", bad); !isErr {
			t.Errorf("remember(%.30v) accepted: %s", bad, got)
		}
	}
	if got, isErr := callText(t, codex, "recall", map[string]any{"query": " "}); !isErr || !strings.Contains(got, "empty query") {
		t.Errorf("empty recall: %s", got)
	}
	// claude may not forget in the example; codex neither: the tool is hidden and refused.
	if got, isErr := callText(t, claude, "forget", map[string]any{"id": mv.ID}); !isErr || !strings.Contains(got, "memory.forget") {
		t.Errorf("forget by claude: %s", got)
	}
}

func TestPatternTools(t *testing.T) {
	f := memoryFixture(t)
	ctx := context.Background()
	var progress atomic.Int64
	claude := f.connect(t, "claude-code", "2025-06-18", &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { progress.Add(1) },
	})
	if got, isErr := callText(t, claude, "search_pattern_examples", map[string]any{"query": "payout validation"}); !isErr || !strings.Contains(got, "bridle patterns index") {
		t.Errorf("search before indexing: %s", got)
	}
	params := &sdk.CallToolParams{Name: "refresh_pattern_example", Arguments: map[string]any{"reference_tag": "modified-mvc-payouts"}}
	params.SetProgressToken("p1")
	res, err := claude.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("refresh: %v %+v", err, res.Content[0])
	}
	// Notifications are handled asynchronously by the client: allow them
	// a moment to arrive.
	for deadline := time.Now().Add(3 * time.Second); progress.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if progress.Load() == 0 {
		t.Error("no progress notifications")
	}
	got, isErr := callText(t, claude, "search_pattern_examples", map[string]any{"query": "where are payouts validated", "arch_tag": "modified-mvc"})
	if isErr || !strings.Contains(got, `"file_path":"internal/service/payout.go"`) {
		t.Errorf("search: %s", got)
	}
	if got, isErr := callText(t, claude, "search_pattern_examples", map[string]any{"query": "x", "arch_tag": "modified-mv"}); !isErr || !strings.Contains(got, `did you mean "modified-mvc"`) {
		t.Errorf("unknown arch tag: %s", got)
	}
	if got, isErr := callText(t, claude, "refresh_pattern_example", map[string]any{"reference_tag": "nope"}); !isErr || !strings.Contains(got, "no example repository") {
		t.Errorf("unknown tag: %s", got)
	}
}
