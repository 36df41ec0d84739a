// Command mcpstart measures an MCP stdio server as an agent sees it: the
// time from spawning the process to the answered initialize and tools/list,
// over many cold starts, and the server's resident memory after a number of
// tools/call requests in one session.
//
//	mcpstart -runs 50 -- bridle mcp --rules examples/runic-gateway
//	mcpstart -runs 1 -calls 1000 -tool get_rules -- bridle mcp --rules …
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("runs", 30, "cold starts to time")
	calls := flag.Int("calls", 0, "after the last start, call -tool this many times and report RSS")
	tool := flag.String("tool", "get_rules", "tool to call with -calls")
	client := flag.String("client", "claude-code", "clientInfo.name to send")
	name := flag.String("name", "", "label for the output")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: mcpstart [flags] -- command args…")
		os.Exit(2)
	}
	if *name == "" {
		*name = args[0]
	}
	var times []time.Duration
	for i := 0; i < *runs; i++ {
		d, err := once(args, *client, 0, "")
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpstart:", err)
			os.Exit(1)
		}
		times = append(times, d)
	}
	slices.Sort(times)
	if len(times) > 0 {
		fmt.Printf("%s: cold start to answered initialize + tools/list: median %.2f ms, p90 %.2f ms, min %.2f ms (%d runs)\n",
			*name, ms(times[len(times)/2]), ms(times[len(times)*9/10]), ms(times[0]), len(times))
	}
	if *calls > 0 {
		if _, err := once(args, *client, *calls, *tool); err != nil {
			fmt.Fprintln(os.Stderr, "mcpstart:", err)
			os.Exit(1)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func once(args []string, client string, calls int, tool string) (time.Duration, error) {
	cmd := exec.Command(args[0], args[1:]...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	out := bufio.NewReaderSize(stdout, 1<<20)
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	wait := func(id int) error {
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				return fmt.Errorf("reading response %d: %w", id, err)
			}
			var m struct {
				ID    *int            `json:"id"`
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.ID != nil && *m.ID == id {
				if m.Error != nil {
					return fmt.Errorf("response %d: %s", id, m.Error)
				}
				return nil
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"` + client + `","version":"1"}}}`)
	if err := wait(1); err != nil {
		return 0, err
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if err := wait(2); err != nil {
		return 0, err
	}
	elapsed := time.Since(start)
	if calls > 0 {
		for i := 0; i < calls; i++ {
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, 100+i, tool))
			if err := wait(100 + i); err != nil {
				return 0, err
			}
		}
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmRSS:") || strings.HasPrefix(line, "VmHWM:") {
				fmt.Printf("after %d %s calls: %s\n", calls, tool, strings.Join(strings.Fields(line), " "))
			}
		}
	}
	return elapsed, nil
}
