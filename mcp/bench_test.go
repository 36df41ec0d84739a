package mcp

import (
	"context"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkGetRules calls get_rules through an in-memory client session, as
// an agent would, on the cached path. It reports the median (p50-ns) and
// p99 (p99-ns) of whole round trips (client encode, server, client decode)
// and the median time the server spends on the call from the moment its
// receiving middleware sees it (server-p50-ns). Target: p50 ≤ 200 µs.
func BenchmarkGetRules(b *testing.B) {
	f := newFixture(&testing.T{}, Options{Rules: exampleRepo(b, b.TempDir()), StateDir: b.TempDir(), CacheDir: b.TempDir(), Refresh: time.Hour})
	var server []time.Duration
	f.srv.SDK().AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			t0 := time.Now()
			res, err := next(ctx, method, req)
			if method == "tools/call" {
				server = append(server, time.Since(t0))
			}
			return res, err
		}
	})
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := f.srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "claude-code", Version: "1"}, nil).Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &sdk.CallToolParams{Name: "get_rules"}
	if _, err := cs.CallTool(ctx, params); err != nil { // warm: compile the snapshot
		b.Fatal(err)
	}
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		res, err := cs.CallTool(ctx, params)
		lat = append(lat, time.Since(t0))
		if err != nil || res.IsError {
			b.Fatal(err)
		}
	}
	slices.Sort(lat)
	slices.Sort(server)
	b.ReportMetric(float64(server[len(server)/2].Nanoseconds()), "server-p50-ns")
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}
