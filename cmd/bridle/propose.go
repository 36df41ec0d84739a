package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/bridle-dev/bridle/actor"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/bridle-dev/bridle/compiler"
	"github.com/bridle-dev/bridle/gateway"
	"github.com/bridle-dev/bridle/internal/identity"
	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/schema"
)

// backendFlags select where proposals live.
type backendFlags struct {
	rules string
	gitea string
	repo  string
	path  string
	json  bool
}

// register adds the backend flags; jsonUsage says what --json prints.
func (f *backendFlags) register(cmd *cobra.Command, jsonUsage string) {
	rulesFlag(cmd, &f.rules, "the local rules `path` (in a git repository); ignored with --gitea")
	giteaFlags(cmd, &f.gitea, &f.repo, &f.path, "keep the proposals as pull requests")
	cmd.Flags().BoolVar(&f.json, "json", false, jsonUsage)
}

func (f *backendFlags) service(fac *factory) (proposals.Service, error) {
	cfg, err := fac.Proposals(proposals.Config{Rules: f.rules, GiteaURL: f.gitea, GiteaRepo: f.repo, Path: f.path})
	if err != nil {
		return proposals.Service{}, err
	}
	b, err := proposals.OpenBackend(cfg)
	if err != nil {
		return proposals.Service{}, err
	}
	return proposals.Service{Backend: b, Version: version(), Redactor: fac.Redactor()}, nil
}

func ctx30() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 2*time.Minute)
}

// proposalErr maps proposal failures to exit codes and prints diagnostics.
func proposalErr(io *streams, err error) error {
	var inv *proposals.InvalidError
	switch {
	case errors.As(err, &inv):
		printDiagnostics(io, inv.Diagnostics)
		fmt.Fprintln(io.errOut, "the proposal would make the rules invalid; nothing was created")
		return &exitError{exitInvalid, errReported}
	case errors.Is(err, proposals.ErrBadInput), errors.Is(err, proposals.ErrNoChange):
		return &exitError{exitUsage, err}
	}
	return err
}

// person is the human a command records: --as when given, else git's
// identity for role, read in the repository at rules (package identity:
// GIT_AUTHOR_* or GIT_COMMITTER_*, then git config). Without a name it
// fails, saying how to set one.
func person(as string, role identity.Role, rules string) (actor.Actor, error) {
	if as = strings.TrimSpace(as); as != "" {
		return actor.Git(as, ""), nil
	}
	p, err := identity.At(role, rules)
	return actor.Git(p.Name, p.Email), err
}

// identityHelp is what the Long help of every command that records a
// human says about who that is.
const identityHelp = `Who you are is decided as git decides it for a commit: the proposer is git's
author (GIT_AUTHOR_NAME, else author.name or user.name in the repository's,
your global or the system git config); whoever approves or rejects is git's
committer (GIT_COMMITTER_NAME, else committer.name or user.name). --as
overrides both. Without a name the command refuses: set one with
git config --global user.name "Your Name".`

func printProposal(io *streams, p proposals.Proposal, asJSON bool, verb string) error {
	if asJSON {
		return writeJSON(io, p)
	}
	fmt.Fprintf(io.errOut, "%s proposal #%d: %s\n", verb, p.Number, p.Title)
	fmt.Fprintf(io.errOut, "  state:  %s\n  branch: %s\n", p.State, p.Branch)
	if p.URL != "" {
		fmt.Fprintf(io.errOut, "  url:    %s\n", p.URL)
	}
	if p.MergedBy != "" {
		fmt.Fprintf(io.errOut, "  merged: by %s at %s\n", p.MergedBy, p.MergedAt.Format(time.RFC3339))
	}
	if p.Conflict != "" {
		fmt.Fprintf(io.errOut, "  note:   %s\n", p.Conflict)
	}
	return nil
}

// proposeOptions are the flags every kind of proposal shares.
type proposeOptions struct {
	backend backendFlags
	why     string
	as      string
}

// proposeKinds is the one list of proposal kinds the CLI offers.
const proposeKinds = "guardrail, pattern, rules, promote or edit"

func newProposeCmd(io *streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "propose",
		Short: "Propose a change to the rules as a pull request",
		Long: `Propose validates a change against main, then opens a proposal: a branch
bridle/user/<you>/<change> with one commit (bridle.yaml and the agents'
files: in rendered/ of a rules repository, at the project root for a rules
folder, with the native enforcement files) and a pull request whose body gives the rationale, the change in
YAML and its effect on every agent's file. Merging the pull request is the
approval. An invalid proposal is refused with diagnostics and creates nothing.
Each kind of change is a command with its own flags and examples.

With --gitea (or GITEA_URL) the proposal is a Gitea pull request; otherwise it
lives in the local rules repository and bridle approve merges it.

` + identityHelp + `
Inside a coding agent's session the proposal is the agent's, whatever --as
says.`,
		Example: `  bridle propose guardrail --id no-force-push --severity hard-instruction \
    --statement "Never force-push to shared branches." --why "We lost work twice."
  bridle propose rules --section project.overview --value-file overview.md --why "New scope"
  bridle propose pattern --file outbox.yaml --why "Document the outbox"
  bridle propose promote --agent claude --suggestion read-before-edit --why "Worked well"
  bridle propose edit --rules rules --why "Grant claude memory.forget"   # your edit of bridle.yaml, whole`,
		Args: cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("propose what? %s", proposeKinds)
			}
			return usageErr("no kind of proposal %q: propose %s", args[0], proposeKinds)
		},
	}
	cmd.AddCommand(newProposeGuardrailCmd(io), newProposePatternCmd(io), newProposeRulesCmd(io), newProposePromoteCmd(io), newProposeEditCmd(io))
	return cmd
}

// proposeCmd is one kind's command: its own flags (added by the caller),
// the shared ones, and change, which builds the change from the flags.
func proposeCmd(io *streams, c *cobra.Command, o *proposeOptions, change func() (proposals.Change, error)) *cobra.Command {
	c.Args = cobra.NoArgs
	c.RunE = func(*cobra.Command, []string) error {
		ch, err := change()
		if err != nil {
			return err
		}
		ch.Rationale = o.why
		svc, err := o.backend.service(io.f)
		if err != nil {
			return err
		}
		origin, err := cliOrigin(io, o.as, o.backend.rules)
		if err != nil {
			return err
		}
		ctx, cancel := ctx30()
		defer cancel()
		p, err := svc.Propose(ctx, proposals.Draft{Change: ch, Origin: origin})
		if errors.Is(err, proposals.ErrNoChange) && o.backend.gitea == "" {
			err = fmt.Errorf("%w%s", err, noChangeHint(o.backend.rules))
		}
		if err != nil {
			return proposalErr(io, err)
		}
		return printProposal(io, p, o.backend.json, "opened")
	}
	c.Flags().StringVar(&o.why, "why", "", "the rationale, shown in the pull request")
	c.Flags().StringVar(&o.as, "as", "", "your `name` as the proposer (default: git's author identity, GIT_AUTHOR_NAME or user.name)")
	o.backend.register(c, "print the opened proposal as one JSON object on stdout")
	return c
}

func newProposeGuardrailCmd(io *streams) *cobra.Command {
	var o proposeOptions
	var id, statement, severity, rationale string
	var appliesTo, enforcedBy []string
	var enf schema.Enforce
	var scope bool
	c := &cobra.Command{
		Use:   "guardrail",
		Short: "Propose a new guardrail",
		Long: `Propose guardrail adds one guardrail to the rules. Its severity is its tier:
guidance (the agent may deviate, and says so), hard-instruction (required;
with --scope-approval the agent asks before acting beyond the task) or
enforcement (Bridle gates the action through the --enforced-by permission).

--forbid, --ask, --no-read and --no-write add the guardrail's enforce: block,
which each agent's own tooling applies before it acts (bridle hook, native
deny rules): commands it refuses or asks about, files it must not read or
write. Each is repeatable; with any of them the tier defaults to
hard-instruction.`,
		Example: `  bridle propose guardrail --id no-force-push --severity hard-instruction \
    --statement "Never force-push to shared branches." --why "We lost work twice."
  bridle propose guardrail --id no-force-push --forbid "git push --force" --ask "git push" \
    --statement "Never force-push." --why "We lost work twice."
  bridle propose guardrail --id no-env-files --no-read .env --no-read "secrets/**" --no-write "secrets/**" \
    --statement "Never open the secrets." --why "Audit finding"
  bridle propose guardrail --id no-secret-access --severity enforcement \
    --enforced-by secrets.read --statement "Never read secrets." --why "Audit finding"`,
	}
	f := c.Flags()
	f.StringVar(&id, "id", "", "the guardrail's `id` (lower-case, with hyphens)")
	f.StringVar(&statement, "statement", "", "the rule, in one line")
	f.StringVar(&severity, "severity", "guidance", "guidance, hard-instruction or enforcement")
	f.StringVar(&rationale, "rationale", "", "why the rule exists, in one line (rendered with the rule)")
	f.StringSliceVar(&appliesTo, "applies-to", nil, "the `agents` it applies to (default all_agents)")
	f.StringSliceVar(&enforcedBy, "enforced-by", nil, "the `permission` Bridle checks, for enforcement rules")
	f.BoolVar(&scope, "scope-approval", false, "agents must call request_scope_approval before acting beyond the task")
	f.StringArrayVar(&enf.Commands.Forbid, "forbid", nil, "a `command` the agent must not run, e.g. \"git push --force\" (enforce.commands.forbid; repeatable)")
	f.StringArrayVar(&enf.Commands.Ask, "ask", nil, "a `command` the agent runs only with your OK (enforce.commands.ask; repeatable)")
	f.StringArrayVar(&enf.Paths.NoRead, "no-read", nil, "a `glob` of files the agent must not read, e.g. \"secrets/**\" (enforce.paths.no_read; repeatable)")
	f.StringArrayVar(&enf.Paths.NoWrite, "no-write", nil, "a `glob` of files the agent must not write (enforce.paths.no_write; repeatable)")
	return proposeCmd(io, c, &o, func() (proposals.Change, error) {
		if id == "" || statement == "" {
			return proposals.Change{}, usageErr("propose guardrail needs --id and --statement")
		}
		if !enf.IsZero() && !c.Flags().Changed("severity") {
			severity = string(schema.HardInstruction) // enforce: is for hard-instruction and enforcement rules
		}
		return proposals.Change{Kind: proposals.KindGuardrail, Guardrail: &schema.Guardrail{ID: id, Statement: statement, Severity: schema.Severity(severity),
			Rationale: rationale, AppliesTo: appliesTo, EnforcedBy: enforcedBy, ScopeApproval: scope, Enforce: enf}}, nil
	})
}

func newProposePatternCmd(io *streams) *cobra.Command {
	var o proposeOptions
	var file string
	c := &cobra.Command{
		Use:   "pattern",
		Short: "Propose a custom pattern, or a new version of one",
		Long: `Propose pattern adds a custom pattern, or replaces the one of the same name.
The pattern is read from a YAML file with its name, description and
example_repos (which bridle patterns index clones and indexes once merged).`,
		Example: `  bridle propose pattern --file outbox.yaml --why "Document the outbox"

  # outbox.yaml
  name: outbox
  description: Write events to an outbox table in the same transaction.`,
	}
	c.Flags().StringVar(&file, "file", "", "a YAML `file` holding one custom pattern (name, description, example_repos)")
	return proposeCmd(io, c, &o, func() (proposals.Change, error) {
		if file == "" {
			return proposals.Change{}, usageErr("propose pattern needs --file with the pattern in YAML")
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return proposals.Change{}, err
		}
		var p schema.CustomPattern
		if err := yaml.Unmarshal(b, &p); err != nil {
			return proposals.Change{}, usageErr("--file %s: %w", file, err)
		}
		return proposals.Change{Kind: proposals.KindPattern, Pattern: &p}, nil
	})
}

func newProposeRulesCmd(io *streams) *cobra.Command {
	var o proposeOptions
	var section, value, valueFile string
	c := &cobra.Command{
		Use:   "rules",
		Short: "Propose a new value for one section of the rules",
		Long: `Propose rules replaces one section of the rules with a new value. The sections:
  ` + strings.Join(proposals.Sections, ", ") + `
Give the value as text with --value, or in a file with --value-file: text for
project.name and project.overview, YAML for the lists.`,
		Example: `  bridle propose rules --section project.overview --value-file overview.md --why "New scope"
  bridle propose rules --section project.name --value "Runic Gateway" --why "Renamed"`,
	}
	f := c.Flags()
	f.StringVar(&section, "section", "", "the `section` to replace: "+strings.Join(proposals.Sections, ", "))
	f.StringVar(&value, "value", "", "the new value, as text")
	f.StringVar(&valueFile, "value-file", "", "a `file` with the new value (YAML for lists, text otherwise)")
	return proposeCmd(io, c, &o, func() (proposals.Change, error) {
		if section == "" || (value == "") == (valueFile == "") {
			return proposals.Change{}, usageErr("propose rules needs --section and one of --value or --value-file")
		}
		ch := proposals.Change{Kind: proposals.KindRules, Section: section, Value: value}
		if valueFile != "" {
			b, err := os.ReadFile(valueFile)
			if err != nil {
				return ch, err
			}
			var v any = string(b)
			if section != "project.overview" && section != "project.name" {
				if err := yaml.Unmarshal(b, &v); err != nil {
					return ch, usageErr("--value-file %s: %w", valueFile, err)
				}
			}
			ch.Value = v
		}
		return ch, nil
	})
}

func newProposePromoteCmd(io *streams) *cobra.Command {
	var o proposeOptions
	var agent, suggestion string
	var appliesTo []string
	c := &cobra.Command{
		Use:   "promote",
		Short: "Propose a profile's vendor suggestion as a guardrail",
		Long: `Propose promote turns one of an agent profile's vendor_guardrail_suggestions
(rules the vendor recommends, which are not policy) into a guardrail of the
project. The proposal's source is vendor, promoted by you.`,
		Example: `  bridle propose promote --agent claude --suggestion read-before-edit --why "Worked well"
  bridle propose promote --agent claude --suggestion read-before-edit --applies-to claude,codex --why "Both need it"`,
	}
	f := c.Flags()
	f.StringVar(&agent, "agent", "", "the `profile` holding the suggestion")
	f.StringVar(&suggestion, "suggestion", "", "the suggestion's `id`")
	f.StringSliceVar(&appliesTo, "applies-to", nil, "the `agents` the promoted guardrail applies to (default all_agents)")
	return proposeCmd(io, c, &o, func() (proposals.Change, error) {
		if agent == "" || suggestion == "" {
			return proposals.Change{}, usageErr("propose promote needs --agent and --suggestion")
		}
		return proposals.Change{Kind: proposals.KindPromote, Promote: &proposals.Promotion{Agent: agent, Suggestion: suggestion, AppliesTo: appliesTo}}, nil
	})
}

func newProposalsCmd(io *streams) *cobra.Command {
	var b backendFlags
	var a adminFlags
	var state string
	cmd := &cobra.Command{
		Use:   "proposals",
		Short: "List, show, rebase and check proposals",
		Long: `Proposals works on the open and past proposals of the rules repository: the
local one (--rules), or the Gitea repository with --gitea and --repo.`,
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List proposals with their state and mergeability",
		Long: `List prints one proposal a row: its number, its state (open and mergeable,
open with a conflict, merged or closed), its title and a note, e.g. that
approving re-applies it to a main that has moved. --state picks which.`,
		Example: `  bridle proposals list --rules .
  bridle proposals list --rules . --state all --json
  bridle proposals list --server http://127.0.0.1:7777 --project runic-gateway`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch proposals.State(state) {
			case proposals.Open, proposals.Merged, proposals.Closed, proposals.All:
			default:
				return usageErr("--state %q: use open, merged, closed or all", state)
			}
			ctx, cancel := ctx30()
			defer cancel()
			var ps []proposals.Proposal
			var listAll func() ([]proposals.Proposal, error)
			via, err := a.gateway(cmd, io)
			switch {
			case err != nil:
				return err
			case via:
				cl, err := a.client(io)
				if err != nil {
					return err
				}
				if ps, err = cl.Proposals(ctx, a.project, proposals.State(state)); err != nil {
					return err
				}
				listAll = func() ([]proposals.Proposal, error) { return cl.Proposals(ctx, a.project, proposals.All) }
			default:
				svc, err := b.service(io.f)
				if err != nil {
					return err
				}
				if ps, err = svc.Backend.List(ctx, proposals.State(state)); err != nil {
					return err
				}
				listAll = func() ([]proposals.Proposal, error) { return svc.Backend.List(ctx, proposals.All) }
			}
			if b.json {
				if ps == nil {
					ps = []proposals.Proposal{}
				}
				return writeJSON(io, ps)
			}
			if len(ps) == 0 {
				if proposals.State(state) == proposals.Open {
					if all, err := listAll(); err == nil && len(all) > 0 {
						none(io, fmt.Sprintf("no open proposals (%s merged or closed: --state all lists them)", count(len(all), "is", "are")),
							"add one with bridle propose KIND ("+proposeKinds+")")
						return nil
					}
				}
				emptyProposals(io, proposals.State(state))
				return nil
			}
			w := table(io.out, "#", "STATE", "TITLE", "NOTE")
			for _, p := range ps {
				status := string(p.State)
				if p.State == proposals.Open {
					status = "open, mergeable"
					if !p.Mergeable {
						status = "open, conflict"
					}
				}
				fmt.Fprintf(w, "#%d\t%s\t%s\t%s\n", p.Number, status, cell(p.Title), cell(p.Conflict))
			}
			return w.Flush()
		},
	}
	list.Flags().StringVar(&state, "state", "open", "list the proposals in this `state`: open, merged, closed or all")
	b.register(list, "print the proposals as a JSON array on stdout (without their descriptions)")
	a.registerGateway(list)
	cmd.AddCommand(list, newShowCmd(io), newRebaseCmd(io), newCheckCmd(io))
	return cmd
}

// emptyProposals says there is no proposal in state, and how one gets there.
func emptyProposals(io *streams, state proposals.State) {
	switch state {
	case proposals.Merged:
		none(io, "no merged proposals yet", "approve one with bridle approve N")
	case proposals.Closed:
		none(io, "no closed proposals yet", "reject one with bridle reject N")
	case proposals.All:
		none(io, "no proposals yet", "add one with bridle propose KIND ("+proposeKinds+")")
	default:
		none(io, "no "+string(state)+" proposals yet", "add one with bridle propose KIND ("+proposeKinds+")")
	}
}

// onProposal runs f on proposal args[0] of the selected backend.
func onProposal(io *streams, b *backendFlags, args []string, f func(ctx context.Context, svc proposals.Service, n int) error) error {
	n, err := number(args[0])
	if err != nil {
		return err
	}
	svc, err := b.service(io.f)
	if err != nil {
		return err
	}
	ctx, cancel := ctx30()
	defer cancel()
	return f(ctx, svc, n)
}

func number(arg string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(arg, "#"))
	if err != nil || n <= 0 {
		return 0, usageErr("%q is not a proposal number", arg)
	}
	return n, nil
}

func newShowCmd(io *streams) *cobra.Command {
	var b backendFlags
	cmd := &cobra.Command{
		Use:   "show N",
		Short: "Show a proposal and the change its commit records",
		Long: `Show prints a proposal's state (on stderr), then, for an open one, the change
its commit records, decoded and checked against its branch, which is what
approving it merges, and last the description its proposer wrote, which
may have been edited since.`,
		Example: `  bridle proposals show 3 --rules .
  bridle proposals show 3 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return onProposal(io, &b, args, func(ctx context.Context, svc proposals.Service, n int) error {
				p, err := svc.Backend.Get(ctx, n)
				if err != nil {
					return err
				}
				if b.json {
					return printProposal(io, p, true, "")
				}
				printProposal(io, p, false, "")
				if p.State == proposals.Open {
					// What approving would merge comes from the commit, not the
					// description, which its author can edit at any time.
					rec, err := svc.Record(ctx, p)
					if err != nil {
						fmt.Fprintf(io.errOut, "warning: %v\n", err)
					} else {
						o := rec.Draft.Origin
						who := o.Author
						if o.Source == schema.SourceAgent {
							who = "agent " + o.Agent + ", session " + o.Session
						}
						fmt.Fprintf(io.out, "Recorded change (from the proposal's commit, checked against its branch), proposed by %s:\n\n%s\n",
							who, proposals.Fence(proposals.ChangeYAML(rec.Draft.Change), "yaml"))
					}
				}
				fmt.Fprintln(io.out, "Description (written by the proposer; it may have been edited since):")
				fmt.Fprintln(io.out)
				fmt.Fprint(io.out, proposals.Description(p.Body))
				return nil
			})
		},
	}
	b.register(cmd, "print the proposal as one JSON object on stdout, with its description and recorded draft")
	return cmd
}

func newRebaseCmd(io *streams) *cobra.Command {
	var b backendFlags
	cmd := &cobra.Command{
		Use:   "rebase N",
		Short: "Re-apply a proposal's change to the current main",
		Long: `Rebase re-applies an open proposal at the document level on the current main:
a guardrail added is still a guardrail added, whatever else main gained. A
change that no longer applies (the same id was added, or the section it
replaces changed since) is reported as a conflict, and nothing changes.`,
		Example: `  bridle proposals rebase 3 --rules .`,
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return onProposal(io, &b, args, func(ctx context.Context, svc proposals.Service, n int) error {
				p, err := svc.Rebase(ctx, n)
				if err != nil {
					return proposalErr(io, err)
				}
				return printProposal(io, p, b.json, "rebased")
			})
		},
	}
	b.register(cmd, "print the rebased proposal as one JSON object on stdout")
	return cmd
}

// cliOrigin is who proposes from the CLI: the human, or — inside a coding
// agent's session — that agent, whatever --as says, so that an agent cannot
// launder its proposal as a human's and then approve it.
func cliOrigin(io *streams, as, rules string) (proposals.Origin, error) {
	v := io.f.AgentSession()
	if v == "" {
		who, err := person(as, identity.Author, rules)
		if err != nil {
			return proposals.Origin{}, fmt.Errorf("propose: %w", err)
		}
		return proposals.OriginOf(who), nil
	}
	agent := io.f.BoundAgent()
	if agent == "" {
		agent = io.f.SessionAgent()
	}
	if agent == "" {
		agent = "unknown"
	}
	fmt.Fprintf(io.errOut, "note: %s is set, so this runs inside an agent's session: proposing as agent %s (--as is ignored)\n", v, agent)
	return proposals.OriginOf(actor.AgentOf("", agent, "shell")), nil
}

func newApproveCmd(io *streams) *cobra.Command {
	var b backendFlags
	var a adminFlags
	var as string
	var self bool
	cmd := &cobra.Command{
		Use:   "approve N",
		Short: "Approve a proposal by merging it",
		Long: `Approve merges an open proposal into main; the merge is the approval, and its
author and time become the rules' approved_by and approved_at. Locally, a
proposal made on an older main is re-applied first. On Gitea the merge is
made as the token's user, who must be allowed to merge into main.

The change is read from the proposal's own commit and checked against its
branch: a branch changed by hand is refused. Nobody approves their own
proposal (a sole maintainer may pass --self for one of their own), and the
command refuses to run inside a coding agent's session (BRIDLE_AGENT,
or a harness's session variable — CLAUDECODE, CODEX_SANDBOX, GEMINI_CLI, OPENCODE, COPILOT_CLI, … — set): approving is a human's act.

` + identityHelp + `
On Gitea the approver is always the token's user.

With --server and --project the approval goes through the gateway's admin
API: as you, when bridle login signed you in to that gateway (and no admin
credential is given), else as the admin credential's holder, named in the
gateway's configuration; on a Gitea project it is made
with your own Gitea token (GITEA_TOKEN or GITEA_TOKEN_FILE in your shell),
never the gateway's bot — without one, the pull request's link is printed
for you to merge in Gitea.`,
		Example: `  bridle approve 3 --rules .
  GIT_COMMITTER_NAME="Mira Okafor" bridle approve 3 --rules .
  bridle approve 3 --rules . --self --json
  bridle approve 3 --server http://127.0.0.1:7777 --project runic-gateway`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if v := io.f.AgentSession(); v != "" {
				return &exitError{exitFailure, fmt.Errorf("approve: %w (%s is set): a human approves, from their own shell", proposals.ErrAgentSession, v)}
			}
			if via, err := a.gateway(cmd, io); via || err != nil {
				if err != nil {
					return err
				}
				n, err := number(args[0])
				if err != nil {
					return err
				}
				cl, err := a.client(io)
				if err != nil {
					return err
				}
				cfg, err := io.f.Proposals(proposals.Config{})
				if err != nil {
					return err
				}
				ctx, cancel := ctx30()
				defer cancel()
				p, err := cl.Approve(ctx, a.project, n, gateway.ApproveRequest{GiteaToken: cfg.Token, Self: self})
				if err != nil {
					return err
				}
				return printProposal(io, p, b.json, "approved")
			}
			return onProposal(io, &b, args, func(ctx context.Context, svc proposals.Service, n int) error {
				var who actor.Actor // no one: the backend's user (git's committer, the Gitea token's)
				if as = strings.TrimSpace(as); as != "" {
					who = actor.Git(as, "")
				}
				p, err := svc.Approve(ctx, n, proposals.Principal{Actor: who, SelfOK: self})
				if err != nil {
					return proposalErr(io, err)
				}
				return printProposal(io, p, b.json, "approved")
			})
		},
	}
	b.register(cmd, "print the merged proposal as one JSON object on stdout")
	a.registerGateway(cmd)
	cmd.Flags().StringVar(&as, "as", "", "local only: the approver's `name` (default: git's committer identity, GIT_COMMITTER_NAME or user.name)")
	cmd.Flags().BoolVar(&self, "self", false, "approve a proposal of your own (a sole maintainer's choice; agents' proposals never need it)")
	return cmd
}

func newRejectCmd(io *streams) *cobra.Command {
	var b backendFlags
	var a adminFlags
	var reason, as string
	cmd := &cobra.Command{
		Use:   "reject N",
		Short: "Reject a proposal (close it without merging)",
		Long: `Reject closes an open proposal without merging it and records why (--reason).

` + identityHelp + `
On Gitea the pull request is closed as the token's user. With --server and
--project it goes through the gateway's admin API, as the gateway's admin.`,
		Example: `  bridle reject 4 --rules . --reason "Duplicate of #3"
  bridle reject 4 --server http://127.0.0.1:7777 --project runic-gateway --reason "Duplicate of #3"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Rejecting kills a proposal (a guardrail meant for the agent,
			// perhaps): a human's act, like approving.
			if v := io.f.AgentSession(); v != "" {
				return &exitError{exitFailure, fmt.Errorf("reject: %w (%s is set): a human rejects, from their own shell", proposals.ErrAgentSession, v)}
			}
			if via, err := a.gateway(cmd, io); via || err != nil {
				if err != nil {
					return err
				}
				n, err := number(args[0])
				if err != nil {
					return err
				}
				cl, err := a.client(io)
				if err != nil {
					return err
				}
				ctx, cancel := ctx30()
				defer cancel()
				p, err := cl.Reject(ctx, a.project, n, reason)
				if err != nil {
					return err
				}
				return printProposal(io, p, b.json, "rejected")
			}
			return onProposal(io, &b, args, func(ctx context.Context, svc proposals.Service, n int) error {
				p, err := svc.Reject(ctx, n, as, reason)
				if err != nil {
					return proposalErr(io, err)
				}
				return printProposal(io, p, b.json, "rejected")
			})
		},
	}
	b.register(cmd, "print the rejected proposal as one JSON object on stdout")
	a.registerGateway(cmd)
	cmd.Flags().StringVar(&reason, "reason", "", "why it is rejected, recorded on the proposal")
	cmd.Flags().StringVar(&as, "as", "", "your `name` (default: git's committer identity, GIT_COMMITTER_NAME or user.name; on Gitea, the token's user)")
	return cmd
}

func newCheckCmd(io *streams) *cobra.Command {
	var rules, base, head string
	var asJSON, strict bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Flag hand-made changes to permissions or provenance (CI)",
		Long: `Check compares --head with its merge base with --base, the way the rules
repository's CI sees a pull request. A change Bridle made is one proposal
commit whose recorded change reproduces its content exactly. Any other change
that touches permissions, an agent's mcp_clients, or the provenance of a
guardrail or pattern is flagged: such a change decides what agents may do,
or who approved what, and needs a careful human review. Flags are printed as
warnings (as ::warning annotations inside Gitea or GitHub Actions); --strict
makes them fail the check (exit 1).`,
		Example: `  bridle proposals check --rules . --base origin/main
  bridle proposals check --rules . --base main --head bridle/agent/claude/x --json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if base == "" {
				base = compiler.Branch(rules)
			}
			r, err := proposals.Inspect(rules, base, head)
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(io, r); err != nil {
					return err
				}
			}
			ci := io.f.InCI()
			// The runners read workflow commands from stderr too: with
			// --json they go there, and stdout stays one document.
			annotations := io.out
			if asJSON {
				annotations = io.errOut
			}
			switch {
			case r.ByBridle:
				fmt.Fprintf(io.errOut, "made by Bridle: one proposal commit (%s) whose recorded change matches its content\n", r.Subject)
			case len(r.Sensitive) == 0:
				fmt.Fprintf(io.errOut, "hand-made change (%s); it touches no permission or provenance\n", r.Why)
			default:
				for _, s := range r.Sensitive {
					msg := fmt.Sprintf("hand-made change to %s: review it with care (it decides what agents may do or who approved what)", s)
					if ci {
						fmt.Fprintf(annotations, "::warning title=bridle::%s\n", msg)
					}
					fmt.Fprintln(io.errOut, "warning: "+msg)
				}
				if strict {
					return &exitError{exitFailure, fmt.Errorf("proposals check: %s", count(len(r.Sensitive), "sensitive hand-made change", "sensitive hand-made changes"))}
				}
			}
			return nil
		},
	}
	rulesFlag(cmd, &rules, "the rules `path` in the repository to check")
	cmd.Flags().StringVar(&base, "base", "", "the `ref` the change is to be merged into (default: the rules' branch)")
	cmd.Flags().StringVar(&head, "head", "HEAD", "the change's `ref`")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object on stdout (CI annotations then go to stderr)")
	cmd.Flags().BoolVar(&strict, "strict", false, "fail (exit 1) when a hand-made change touches permissions or provenance")
	return cmd
}
