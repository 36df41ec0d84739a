package upstream

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bridle-dev/bridle/internal/upstreamtest"
)

// BenchmarkProxy measures what Bridle adds to a call: the fake upstream's
// echo called straight (an MCP client → a stdio child) and through Bridle
// (an MCP client → the Bridle mcp.Server, in memory → its permission,
// redaction and audit middlewares → the upstream's stdio child), the two
// alternated in one run so that both see the same machine. It reports the
// median of each and the median added.
//
//	go test -run '^$' -bench Proxy -benchtime 2000x ./upstream/
func BenchmarkProxy(b *testing.B) {
	ctx := context.Background()
	argv, env := upstreamtest.Command(b)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), upstreamtest.FakeEnv + "=" + env[upstreamtest.FakeEnv]}
	direct, err := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer direct.Close()

	br := newBridle(b)
	startFake(b, br, nil)
	agent := br.connect(b, "claude-code", nil)

	args := map[string]any{"text": "hello"}
	call := func(cs *sdk.ClientSession, name string) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		d := time.Since(start)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", name, err, res.Content[0])
		}
		return d
	}
	for range 50 { // warm up: the snapshot, the schemas, the children
		call(direct, "echo")
		call(agent, "fake_echo")
	}
	var straight, through []time.Duration
	b.ResetTimer()
	for b.Loop() {
		straight = append(straight, call(direct, "echo"))
		through = append(through, call(agent, "fake_echo"))
	}
	b.StopTimer()
	p50 := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	d, t := p50(straight), p50(through)
	b.ReportMetric(float64(d.Microseconds()), "p50-direct-µs")
	b.ReportMetric(float64(t.Microseconds()), "p50-bridle-µs")
	b.ReportMetric(float64((t - d).Microseconds()), "p50-added-µs")
}
