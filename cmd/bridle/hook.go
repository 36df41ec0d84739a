package main

import (
	"bytes"
	"io"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/enforce"
	"github.com/bridle-dev/bridle/mcp"
)

type hookOptions struct {
	rules, ref, agent string
}

func newHookCmd(io *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Run the agent harness hooks that enforce guardrails",
	}
	var o hookOptions
	claude := &cobra.Command{
		Use:   "claude",
		Short: "Deny or ask for a Claude Code tool call (PreToolUse hook)",
		Long: `Claude runs this before every tool call (bridle install claude and
bridle render --all wire it into .claude/settings.json). It reads the hook's
JSON on stdin, checks Bash commands and file reads and edits against the
enforce entries of the committed rules (main, as the sidecar serves them),
and prints Claude Code's decision: deny or ask with the guardrail's id and
statement, or nothing, which leaves the call to Claude Code's own rules.
When the rules cannot be loaded it asks, naming why.`,
		Example: `  echo '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force"}}' | bridle hook claude --rules rules`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return hookClaude(io, stdin(cmd), o)
		},
	}
	rulesFlag(claude, &o.rules, "")
	refFlag(claude, &o.ref, mcp.DefaultRef, "enforce the rules committed at this git `ref`, as the sidecar serves them")
	claude.Flags().StringVar(&o.agent, "agent", "claude", "the `agent` whose guardrails apply")
	cmd.AddCommand(claude)
	return cmd
}

func hookClaude(io *streams, in io.Reader, o hookOptions) error {
	data, err := readAllLimited(in, enforce.MaxHookInput+1)
	if err != nil {
		return err
	}
	hin, err := enforce.ParseHookInput(data)
	if err != nil {
		return writeHook(io, enforce.Decision{Verdict: enforce.Ask, Reason: "Bridle could not read the hook's input (" + err.Error() + ")"})
	}
	// The same loader as the sidecar: committed main, reviewed, forward only.
	snap, _, err := mcp.Load(mcp.Options{Rules: findRules(o.rules), Ref: o.ref, Version: version(), CacheDir: io.f.CacheDir()})
	if err != nil {
		return writeHook(io, enforce.Decision{Verdict: enforce.Ask, Reason: "Bridle could not load the rules (" + err.Error() + ")"})
	}
	rules, err := enforce.New(&snap.Document, o.agent)
	if err != nil {
		return writeHook(io, enforce.Decision{Verdict: enforce.Ask, Reason: "the rules' enforce entries are invalid (" + err.Error() + ")"})
	}
	project := io.f.ClaudeProjectDir()
	if project == "" {
		project = hin.Cwd
	}
	return writeHook(io, rules.ClaudeHook(hin, project))
}

// writeHook prints the decision for Claude Code, masked like every other
// output: the reason quotes the command, which may hold a secret.
func writeHook(io *streams, d enforce.Decision) error {
	out := enforce.ClaudeHookOutput(d)
	if len(out) == 0 {
		return nil
	}
	_, err := io.out.Write(append(io.f.Redactor().JSON(bytes.TrimSpace(out)), '\n'))
	return err
}

func readAllLimited(r io.Reader, n int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, n))
}
