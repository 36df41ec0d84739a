package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/bridle-dev/bridle/schema"
	"github.com/bridle-dev/bridle/vault"
)

// Exit codes, listed in `bridle --help` and in docs/reference/exit-codes.md
// (generated from these constants and their comments).
const (
	exitOK       = 0 // success
	exitFailure  = 1 // an operation failed (I/O, git, …)
	exitUsage    = 2 // bad flags or arguments
	exitInvalid  = 3 // the rules are invalid
	exitOutdated = 4 // render --check found stale, missing or hand-edited files
)

// exitError carries an exit code; it is the only place errors become codes.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, args...)}
}

// errReported is returned when the command already printed what went wrong.
var errReported = errors.New("reported")

// streams is where commands write: data to out, status and diagnostics to errOut.
type streams struct {
	out, errOut io.Writer // both masked by the factory's redactor
	f           *factory  // the wiring seam: environment, redactor, configuration
	// protocol is stdout unmasked, for bridle mcp only: the MCP server masks
	// its own messages, decoded, so the JSON-RPC stream stays valid.
	protocol io.Writer
}

func run(args []string, stdout, stderr io.Writer) int {
	f := processFactory()
	io := &streams{out: f.masked(stdout), errOut: f.masked(stderr), f: f, protocol: stdout}
	root := newRootFor(io, args)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	ran := false
	root.PersistentPreRun = func(*cobra.Command, []string) { ran = true }
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	code := exitFailure
	switch {
	case errors.As(err, &ee):
		code = ee.code
	case !ran: // cobra refused the arguments before the command ran
		code = exitUsage
	case errors.Is(err, vault.ErrBadName): // a secret's name is an argument
		code = exitUsage
	}
	var ds schema.Diagnostics
	if !errors.Is(err, errReported) && !errors.As(err, &ds) {
		// An error may name what a file held (a path, a value): shown
		// printable, it cannot drive the terminal.
		fmt.Fprintf(stderr, "bridle: %s\n", printableLines(io.f.Redactor().Redact(err.Error())))
		if code == exitUsage {
			path := "bridle"
			if cmd != nil {
				path = cmd.CommandPath()
			}
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", path)
		}
	}
	return code
}

func newRoot(io *streams) *cobra.Command {
	root := bareRoot(io)
	for _, sub := range subcommands {
		root.AddCommand(sub.build(io))
	}
	refuseUnknownSubcommands(root)
	return root
}

// bareRoot is the root command without its subcommands.
func bareRoot(io *streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "bridle",
		Short: "One canonical ruleset for every coding agent",
		Long: `Bridle keeps one canonical, version-controlled ruleset per project (bridle.yaml)
and renders it into each coding agent's instruction file: CLAUDE.md for Claude,
AGENTS.md for Codex, and a step-by-step AGENTS.md for Kimi and DeepSeek.

Exit codes:
  0  success
  1  an operation failed (I/O, git, an unknown --ref, …)
  2  bad flags or arguments
  3  the rules are invalid (diagnostics on stderr, or stdout with --json)
  4  render --check found stale, missing or hand-edited files

Shell completion: bridle completion bash (or zsh, fish, powershell) prints
the script; bridle completion bash --help says where to load it from.`,
		Example: `  cd my-project && bridle init rules            # the rules, committed on main
  bridle install claude --project . --rules rules  # Claude Code starts bridle mcp
  bridle propose guardrail --rules rules --id no-force-push \
    --statement "Never force-push." --why "We lost work."
  bridle approve 1 --rules rules --self
  bridle render --rules rules --all --out . --check  # what CI runs
  source <(bridle completion bash)                  # tab completion in this shell`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate(versionLine()) // no template actions in it: printed as is
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%w", err) })
	root.CompletionOptions.HiddenDefaultCmd = true
	return root
}

// subcommands are the root's commands, in the order help lists them.
var subcommands = []struct {
	name  string
	build func(*streams) *cobra.Command
}{
	{"init", newInitCmd},
	{"import", newImportCmd},
	{"validate", newValidateCmd},
	{"render", newRenderCmd},
	{"compile", newCompileCmd},
	{"explain", newExplainCmd},
	{"schema", newSchemaCmd},
	{"propose", newProposeCmd},
	{"proposals", newProposalsCmd},
	{"approve", newApproveCmd},
	{"reject", newRejectCmd},
	{"mcp", newMCPCmd},
	{"serve", newServeCmd},
	{"vendor", newVendorCmd},
	{"login", newLoginCmd},
	{"logout", newLogoutCmd},
	{"agents", newAgentsCmd},
	{"secrets", newSecretsCmd},
	{"hook", newHookCmd},
	{"memory", newMemoryCmd},
	{"patterns", newPatternsCmd},
	{"install", newInstallCmd},
	{"audit", newAuditCmd},
	{"doctor", newDoctorCmd},
	{"version", newVersionCmd},
}

// newRootFor is newRoot for a run with args: when args start with a
// subcommand's name, only that subcommand is built, for cobra would run it
// and nothing else. Building all of them (their flags, their subcommands)
// cost every run ~0.9M instructions, a tenth of bridle version, and the hook
// runs before every tool call of every agent. Anything else (help, a flag, a
// typo that gets a suggestion) gets the whole tree.
func newRootFor(io *streams, args []string) *cobra.Command {
	if len(args) > 0 {
		for _, sub := range subcommands {
			if sub.name == args[0] {
				root := bareRoot(io)
				root.AddCommand(sub.build(io))
				refuseUnknownSubcommands(root)
				return root
			}
		}
	}
	return newRoot(io)
}

// version is the module version when installed with go install, else "dev".
func version() string {
	if bi, ok := buildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// buildInfo is debug.ReadBuildInfo, read once: it parses the binary's
// module list on every call, and every run asks for the version a few times.
var buildInfo = sync.OnceValues(debug.ReadBuildInfo)

func newVersionCmd(io *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the bridle version (as bridle --version does)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprint(io.out, versionLine())
			return nil
		},
	}
}

// versionLine is what bridle version and bridle --version print.
func versionLine() string {
	goVersion := "unknown"
	if bi, ok := buildInfo(); ok {
		goVersion = bi.GoVersion
	}
	return fmt.Sprintf("bridle %s (schema_version %d, %s)\n", version(), schema.CurrentVersion, goVersion)
}

// refuseUnknownSubcommands makes every command that only groups others
// (hook, proposals, memory, patterns) refuse an unknown subcommand with exit
// 2 and a suggestion, instead of printing its help and exiting 0 (a mistyped
// hook command would otherwise pass silently under Claude Code).
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if c.Parent() == nil || !c.HasSubCommands() || c.Run != nil || c.RunE != nil {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.SuggestionsMinimumDistance = 2
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageErr("%s needs a command: %s", cmd.CommandPath(), strings.Join(subcommandNames(cmd), ", "))
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if sg := cmd.SuggestionsFor(args[0]); len(sg) > 0 {
			msg += fmt.Sprintf(" (did you mean %q?)", sg[0])
		}
		return usageErr("%s; its commands: %s", msg, strings.Join(subcommandNames(cmd), ", "))
	}
}

func subcommandNames(c *cobra.Command) []string {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return names
}
