package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/memory"
)

// A project has one store whichever way it is served: what an agent
// remembered through the sidecar (bridle mcp) and the pattern examples
// bridle patterns index indexed are what bridle serve on the same rules
// recalls and lists, and the audit log it shows holds the same remember.
func TestOneStoreFromSidecarToGateway(t *testing.T) {
	bin := builtBinary(t)
	isolated(t)
	dir := rulesInit(t)
	ex := filepath.Join(dir, "examples", "outbox")
	os.MkdirAll(ex, 0o755)
	writeFileAt(t, filepath.Join(ex, "relay.go"), "package outbox\n\n// Relay moves committed outbox rows to the broker, oldest first.\nfunc Relay() {}\n")
	pattern := writeFile(t, "name: outbox\ndescription: Write events to an outbox table in the same transaction.\nexample_repos:\n  - url: "+ex+"\n    reference_tag: outbox-1\n    arch_tag: outbox\n")
	mustRun(t, "propose", "pattern", "--rules", dir, "--file", pattern, "--why", "Show the outbox.")
	mustRun(t, "approve", "1", "--rules", dir, "--self")
	mustRun(t, "patterns", "index", "--rules", dir)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "claude-code", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: exec.Command(bin, "mcp", "--rules", dir, "--agent", "claude")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "remember", Arguments: map[string]any{"text": "The payout queue is drained by the nightly job.", "kind": "decision"}})
	if err != nil || res.IsError {
		t.Fatalf("remember through the sidecar: %v %+v", err, res)
	}
	cs.Close()

	addr := freeAddr(t)
	url := "http://" + addr
	srv := startServe(t, bin, "--rules", dir, "--listen", addr)
	waitHealthy(t, url)
	admin, err := os.ReadFile(filepath.Join(os.Getenv("BRIDLE_STATE_DIR"), "gateway", "admin-token"))
	if err != nil {
		t.Fatalf("%v\n%s", err, srv.stderr)
	}
	get := func(path string, out any) {
		t.Helper()
		req, _ := http.NewRequest("GET", url+path, nil)
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(admin)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
	}
	var mems []gateway.MemoryView
	get("/api/v1/projects/acme/memory?q=payout", &mems)
	if len(mems) != 1 || !strings.Contains(mems[0].Text, "nightly job") {
		t.Errorf("the gateway does not recall what the sidecar remembered: %+v", mems)
	}
	var pats []memory.ExampleStatus
	get("/api/v1/projects/acme/patterns", &pats)
	if len(pats) != 1 || pats[0].Chunks == 0 || pats[0].LastIndexed == "" {
		t.Errorf("the gateway does not see the sidecar's index: %+v", pats)
	}
}

func writeFileAt(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
