package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/agents"
	"github.com/bridle-dev/bridle/enforce"
	"github.com/bridle-dev/bridle/mcp"
)

type hookOptions struct {
	rules, ref, agent string
}

// hookExamples are a call each protocol's harness sends, for --help.
var hookExamples = map[string]string{
	"claude":   `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force"}}`,
	"gemini":   `{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"git push --force"}}`,
	"opencode": `{"tool":"bash","args":{"command":"git push --force"},"cwd":"."}`,
	"copilot":  `{"toolName":"bash","toolArgs":{"command":"git push --force"},"cwd":"."}`,
	"amp":      `{"cmd":"git push --force"}`,
}

// hookEnv is what a harness passes its hook in the environment, for
// --help: Amp's delegate names the tool in AGENT_TOOL_NAME. A function, not
// a package-level map: nothing a command does not use is built before main.
func hookEnv(hook string) string {
	if hook == "amp" {
		return "AGENT_TOOL_NAME=Bash "
	}
	return ""
}

// newHookCmd has one subcommand per harness with a pre-tool hook, from the
// agents registry.
func newHookCmd(io *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Run the agent harness hooks that enforce guardrails",
		Long: `Each harness runs its subcommand before every tool call (bridle install AGENT
--project and bridle render --all wire it into the harness's files). It reads
the hook's JSON on stdin, checks shell commands and file reads and writes
against the enforce entries of the committed rules (main, as the sidecar
serves them), and answers in the harness's own format: deny or ask with the
guardrail's id and statement, or nothing, which leaves the call to the
harness's own rules. When the rules cannot be loaded it asks, naming why.`,
	}
	for _, a := range agents.All() {
		if a.Harness == nil || a.Harness.Hook == "" {
			continue
		}
		cmd.AddCommand(newHookAgentCmd(io, a))
	}
	return cmd
}

func newHookAgentCmd(io *streams, a agents.Agent) *cobra.Command {
	var o hookOptions
	h := a.Harness
	c := &cobra.Command{
		Use:   a.Name,
		Short: hookShort(a),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			proto, ok := enforce.ProtocolFor(h.Hook)
			if !ok {
				return fmt.Errorf("hook %s: no protocol %q", a.Name, h.Hook)
			}
			return runHook(io, stdin(cmd), o, proto, io.f.HarnessProjectDir(h.ProjectEnv))
		},
	}
	if h.HookCannotAsk {
		c.Long = c.Short + ".\n\n" + a.DisplayName + "'s pre-tool hook can allow or deny a call but not ask the person, so a call an\nenforce entry would ask about is denied, with a reason saying that a person must approve it."
	}
	if ex := hookExamples[h.Hook]; ex != "" {
		c.Example = "  echo '" + ex + "' | " + hookEnv(h.Hook) + "bridle hook " + a.Name + " --rules rules"
	}
	rulesFlag(c, &o.rules, "")
	refFlag(c, &o.ref, "", "enforce the rules committed at this git `ref`, as the sidecar serves them (default: the rules' branch)")
	c.Flags().StringVar(&o.agent, "agent", a.Name, "the `agent` whose guardrails apply (a profile running this harness)")
	return c
}

// hookShort is the one-line help of bridle hook AGENT: a hook that cannot
// ask (agents.Harness.HookCannotAsk) only denies.
func hookShort(a agents.Agent) string {
	if a.Harness.HookCannotAsk {
		return fmt.Sprintf("Deny %s tool calls (its pre-tool hook cannot ask)", a.DisplayName)
	}
	return fmt.Sprintf("Deny or ask for a %s tool call (its pre-tool hook)", a.DisplayName)
}

// runHook decides one call and answers in proto's format. project is the
// project root the harness named ("" when it names none: the call's own
// working directory is used).
func runHook(io *streams, in io.Reader, o hookOptions, proto enforce.Protocol, project string) error {
	data, err := readAllLimited(in, enforce.MaxHookInput+1)
	if err != nil {
		return err
	}
	// Amp's delegate names the tool in the environment (enforce.EnvProtocol).
	call, err := enforce.ParseCall(proto, data, os.Getenv)
	if err != nil {
		return writeHook(io, proto, enforce.UnreadableInput(proto, err))
	}
	// The same loader as the sidecar: committed main, reviewed, forward only.
	snap, _, err := mcp.Load(mcp.Options{Rules: findRules(o.rules), Ref: o.ref, Version: version(), CacheDir: io.f.CacheDir()})
	if err != nil {
		return writeHook(io, proto, enforce.Decision{Verdict: enforce.Ask, Reason: "Bridle could not load the rules (" + err.Error() + ")"})
	}
	rules, err := enforce.New(&snap.Document, o.agent)
	if err != nil {
		return writeHook(io, proto, enforce.Decision{Verdict: enforce.Ask, Reason: "the rules' enforce entries are invalid (" + err.Error() + ")"})
	}
	if project == "" {
		project = call.Cwd
	}
	if project == "" {
		// A harness that names neither (Windsurf's file hooks) runs its
		// hooks in the workspace.
		project, _ = os.Getwd()
	}
	return writeHook(io, proto, rules.Decide(call, project))
}

// writeHook prints the decision in the harness's format, masked like every
// other output: the reason quotes the command, which may hold a secret.
func writeHook(io *streams, proto enforce.Protocol, d enforce.Decision) error {
	r := proto.Output(d)
	red := io.f.Redactor()
	if len(r.Stdout) > 0 {
		if _, err := io.out.Write(append(red.JSON(bytes.TrimSpace(r.Stdout)), '\n')); err != nil {
			return err
		}
	}
	if len(r.Stderr) > 0 {
		if _, err := io.errOut.Write(r.Stderr); err != nil {
			return err
		}
	}
	if r.Exit != 0 {
		return &exitError{r.Exit, errReported}
	}
	return nil
}

func readAllLimited(r io.Reader, n int64) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, n))
}
