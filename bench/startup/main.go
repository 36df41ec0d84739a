// Command startup times short-lived commands from process start to exit,
// interleaved: each round runs every command once, in a new random order, so
// that load on a shared machine falls on all of them alike (hyperfine runs
// one command's runs back to back). It prints each command's median, p10
// and p90 wall time, its median CPU time (user + system), its median count
// of minor page faults (getrusage's ru_minflt: the pages the process touched
// first, which no load on the machine changes) and its median's ratio to the
// first command's.
//
//	startup -runs 40 -cmd 'true|-|true' -cmd 'hook|in.json|bridle hook claude --rules r'
//
// A -cmd is NAME|STDIN|COMMAND ARGS…: STDIN is a file to read standard
// input from, or - for none; the command is split on spaces (no quoting).
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

type command struct {
	name, stdin string
	argv        []string
	wall, cpu   []time.Duration
	faults      []int64
}

type cmdFlag []*command

func (c *cmdFlag) String() string { return "" }

func (c *cmdFlag) Set(s string) error {
	f := strings.SplitN(s, "|", 3)
	if len(f) != 3 || f[0] == "" || strings.TrimSpace(f[2]) == "" {
		return fmt.Errorf("want NAME|STDIN|COMMAND, got %q", s)
	}
	*c = append(*c, &command{name: f[0], stdin: f[1], argv: strings.Fields(f[2])})
	return nil
}

func main() {
	var cmds cmdFlag
	runs := flag.Int("runs", 40, "timed rounds")
	warmup := flag.Int("warmup", 3, "untimed rounds first")
	flag.Var(&cmds, "cmd", "NAME|STDIN|COMMAND ARGS… (repeat; the first is the baseline)")
	flag.Parse()
	if len(cmds) == 0 {
		fmt.Fprintln(os.Stderr, "usage: startup [-runs N] -cmd 'NAME|STDIN|COMMAND' …")
		os.Exit(2)
	}
	order := make([]int, len(cmds))
	for i := range order {
		order[i] = i
	}
	for round := 0; round < *warmup+*runs; round++ {
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			wall, cpu, faults, err := cmds[i].run()
			if err != nil {
				fmt.Fprintf(os.Stderr, "startup: %s: %v\n", cmds[i].name, err)
				os.Exit(1)
			}
			if round >= *warmup {
				cmds[i].wall = append(cmds[i].wall, wall)
				cmds[i].cpu = append(cmds[i].cpu, cpu)
				cmds[i].faults = append(cmds[i].faults, faults)
			}
		}
	}
	base := median(cmds[0].wall)
	fmt.Printf("%-28s %9s %9s %9s %9s %7s %9s\n", "command ("+fmt.Sprint(*runs)+" runs)", "median", "p10", "p90", "cpu", "faults", "÷ "+cmds[0].name)
	for _, c := range cmds {
		fmt.Printf("%-28s %6.2f ms %6.2f ms %6.2f ms %6.2f ms %7d %8.1f×\n", c.name, ms(median(c.wall)), ms(pct(c.wall, 10)),
			ms(pct(c.wall, 90)), ms(median(c.cpu)), pct(c.faults, 50), float64(median(c.wall))/float64(base))
	}
}

// run starts the command and waits for it; its output is discarded.
func (c *command) run() (wall, cpu time.Duration, faults int64, err error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	if c.stdin != "-" {
		f, err := os.Open(c.stdin)
		if err != nil {
			return 0, 0, 0, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w", strings.Join(c.argv, " "), err)
	}
	wall = time.Since(start)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		faults = ru.Minflt
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), faults, nil
}

func median(d []time.Duration) time.Duration { return pct(d, 50) }

func pct[T time.Duration | int64](d []T, p int) T {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
