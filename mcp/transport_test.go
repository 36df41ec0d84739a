package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzLineTransport feeds arbitrary input to the stdio transport: it must
// never panic or hang, and every line it writes must be a JSON-RPC response
// (its own errors, or the answers of the stand-in server below).
func FuzzLineTransport(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"not json\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n",
		`{"jsonrpc":"2.0","id":{"x":1},"params":1}` + "\n",
		"\n\n\r\n",
		strings.Repeat("x", 300) + "\n",
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		tr := &LineTransport{In: bytes.NewReader(data), Out: &out, MaxLine: 256}
		conn, err := tr.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				if ctx.Err() != nil {
					t.Fatal("transport hung")
				}
				break
			}
			// Play the server: answer every call.
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
			}
		}
		conn.Close()
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if line == "" {
				continue
			}
			var m struct {
				Error  *struct{ Code int } `json:"error"`
				Result json.RawMessage     `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil || (m.Error == nil) == (m.Result == nil) {
				t.Fatalf("transport wrote a line that is not a JSON-RPC response: %q", line)
			}
		}
	})
}
