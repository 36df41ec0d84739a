package renderers

import (
	"fmt"
	"strings"

	"github.com/bridle-dev/bridle/schema"
)

// stepwise renders an AGENTS.md-style file for weaker instruction-followers
// (Kimi, DeepSeek). Instead of a reference document it gives numbered
// procedures to run at fixed moments (session start, before each change,
// after each change, before reporting done), numbers every rule (E1, R1, G1,
// C1) so the procedures can point at them, and spells out for each tier what
// to do when a rule and the task disagree.
type stepwise struct{}

func (stepwise) Name() string { return "agents-md-stepwise" }

// Fits stepwise-style agents, whatever their format.
func (stepwise) Fits(p schema.AgentProfile) bool { return p.Style == schema.Stepwise }

func (stepwise) Render(in Input) []byte {
	d := in.Doc
	gs := guardrailsFor(d, in.Agent)
	enf := byTier(gs, schema.Enforcement)
	must := byTier(gs, schema.HardInstruction)
	should := byTier(gs, schema.Guidance)
	scope := scopeRules(gs)
	// A harness with no MCP client (Aider) cannot reach Bridle: the steps
	// name none of its tools and send every question to the human.
	nm := noMCP(in.Profile)
	ruleProfile := schema.AgentProfile{Style: schema.Stepwise} // no harness mechanism Bridle renders into
	if nm {
		ruleProfile = in.Profile
	}

	var b strings.Builder
	b.Grow(sizeHint(d))
	b.WriteString(Header(in))
	b.WriteByte('\n')
	fmt.Fprintf(&b, "# Instructions for %s — %s\n\n", text(in.Profile.DisplayName), projectName(d))
	b.WriteString("Read this whole file before you start. It has numbered steps. Do every step, in order, every time. ")
	b.WriteString("Do not skip a step because it seems obvious. When a step says STOP, stop and do nothing else until the step says you may go on.\n\n")

	// The procedures.
	b.WriteString("## Step 1 — At the start of every session\n\n")
	first := []string{"Call the `get_rules` tool of the `bridle` MCP server. If it answers, its text replaces this file for this session."}
	lists := "Read the rule lists below: E (enforced by Bridle), R (you MUST), G (you SHOULD) and C (conventions)."
	if nm {
		first = nil
		lists = "Read the rule lists below: E (enforced by Bridle elsewhere; here you MUST follow them yourself), R (you MUST), G (you SHOULD) and C (conventions)."
	}
	steps(&b, append(first,
		"Read the task. Write one sentence that says what the task asks for. Anything outside that sentence is OUT OF SCOPE.",
		lists,
	)...)

	b.WriteString("## Step 2 — Before each change\n\n")
	b.WriteString("Before you edit a file, run a command or call a tool, answer these questions about that one action, in order:\n\n")
	var pre []string
	if len(scope) > 0 && !nm {
		pre = append(pre, fmt.Sprintf("Is the action inside the task sentence from Step 1? If NO: STOP. Call `request_scope_approval` with `action` (what you want to do), `reason` (why the task needs it) and `guardrail_id` (one of %s). Wait for the answer. Go on only if the answer is yes. If there is no answer, ask the human in chat and wait.", backticks(scope)))
	} else {
		pre = append(pre, "Is the action inside the task sentence from Step 1? If NO: STOP and ask the human before you do it.")
	}
	if len(must) > 0 {
		pre = append(pre, fmt.Sprintf("Check the action against %s. If it breaks %s: STOP. Do not do it. Find another way that follows the rule, or ask the human.", span("R", len(must), "every R rule, %s, one at a time", "rule R1"), pick(len(must), "it", "any of them")))
	}
	switch {
	case len(enf) > 0 && nm:
		pre = append(pre, fmt.Sprintf("Does the action touch something in %s? Nothing checks it for you: follow the rule yourself. If the rule forbids the action, or you are unsure: STOP and ask the human.", span("E", len(enf), "%s", "E1")))
	case len(enf) > 0:
		pre = append(pre, fmt.Sprintf("Does the action touch something in %s? Then do it only through the Bridle tools. If Bridle refuses: STOP. Tell the human what was refused. Never try another way around it.", span("E", len(enf), "%s", "E1")))
	}
	if len(d.Project.Conventions) > 0 {
		pre = append(pre, fmt.Sprintf("Will the result follow %s? If NO: change your plan until it does.", span("C", len(d.Project.Conventions), "conventions %s", "convention C1")))
	}
	if len(should) > 0 {
		pre = append(pre, fmt.Sprintf("Does the action go against %s? You may still do it, but write down which rule and why, for Step 4.", span("G", len(should), "a G rule (%s)", "rule G1")))
	}
	steps(&b, pre...)

	b.WriteString("## Step 3 — After each change\n\n")
	var post []string
	for _, c := range commandsByName(d, "build", "generate") {
		post = append(post, fmt.Sprintf("Run the %s command: %s. If it fails, fix the cause before anything else.", c.Name, code(c.Run)))
	}
	for _, c := range commandsByName(d, "test") {
		post = append(post, fmt.Sprintf("Run the test command: %s. If a test fails, fix the code, not the test. Never delete, skip or weaken a test to make it pass.", code(c.Run)))
	}
	for _, c := range commandsByName(d, "lint") {
		post = append(post, fmt.Sprintf("Run the lint command: %s. Fix every finding in the code you changed.", code(c.Run)))
	}
	post = append(post, "Read your change again. Check it against each R rule once more.")
	steps(&b, post...)

	b.WriteString("## Step 4 — Before you say the task is done\n\n")
	steps(&b,
		"Every command in Step 3 passes.",
		"List every file you changed and, for each, say how it serves the task sentence from Step 1.",
		"Say which G rules you did not follow, if any, and why.",
		"If anything is unfinished or you are unsure, say so plainly. Never claim work you did not do.",
	)

	// The numbered rules.
	if len(enf) > 0 {
		if nm {
			b.WriteString("## E — Rules you MUST follow, which Bridle enforces elsewhere\n\n")
			b.WriteString("Bridle enforces these for agents that can reach it. Yours cannot: nothing checks them for you, so follow each one yourself.\n\n")
		} else {
			b.WriteString("## E — Rules Bridle enforces\n\n")
			b.WriteString("Bridle checks these itself. It refuses the action unless your permissions allow it.\n\n")
		}
		for i, g := range enf {
			rule(&b, fmt.Sprintf("E%d", i+1), g, ruleProfile)
			if len(g.EnforcedBy) > 0 && !nm {
				var has, lacks []string
				for _, p := range g.EnforcedBy {
					if d.Permissions[in.Agent].Allows(p) {
						has = append(has, p)
					} else {
						lacks = append(lacks, p)
					}
				}
				if len(lacks) > 0 {
					fmt.Fprintf(&b, "  - You do NOT have %s. Bridle will refuse. Do not try.\n", backticks(lacks))
				}
				if len(has) > 0 {
					fmt.Fprintf(&b, "  - You have %s, so Bridle allows it, but only through its tools.\n", backticks(has))
				}
			}
			origin(&b, g)
		}
		b.WriteByte('\n')
	}
	if len(must) > 0 {
		b.WriteString("## R — Rules you MUST follow\n\n")
		b.WriteString("These are required. If the task seems to need you to break one: STOP and ask the human.\n\n")
		for i, g := range must {
			rule(&b, fmt.Sprintf("R%d", i+1), g, ruleProfile)
			if g.ScopeApproval && nm {
				b.WriteString("  - This is a scope rule. Before an action it covers, ask the human in chat and wait for yes.\n")
			} else if g.ScopeApproval {
				b.WriteString("  - This is a scope rule. Before an action it covers, call `request_scope_approval` and wait for yes.\n")
			}
			fmt.Fprintf(&b, "  - Check: before each change, ask \"does my next action follow %s?\" If no, do not do it.\n", g.ID)
			origin(&b, g)
		}
		b.WriteByte('\n')
	}
	if len(should) > 0 {
		b.WriteString("## G — Rules you SHOULD follow\n\n")
		b.WriteString("Follow these unless you have a clear reason not to. If you do not follow one, say which and why when you report.\n\n")
		for i, g := range should {
			rule(&b, fmt.Sprintf("G%d", i+1), g, ruleProfile)
			origin(&b, g)
		}
		b.WriteByte('\n')
	}
	if len(d.Project.Conventions) > 0 {
		b.WriteString("## C — Conventions\n\n")
		b.WriteString("Write all new and changed code like this:\n\n")
		for i, c := range d.Project.Conventions {
			fmt.Fprintf(&b, "- **C%d** `%s`: %s\n", i+1, c.ID, text(c.Statement))
			if c.Rationale != "" {
				b.WriteString("  - Why: " + text(c.Rationale) + "\n")
			}
		}
		b.WriteByte('\n')
	}

	// Reference material.
	b.WriteString("## About the project\n\n")
	paragraphs(&b, d.Project.Overview)
	if len(d.Project.Stack) > 0 {
		b.WriteString("It uses:\n\n")
		for _, s := range d.Project.Stack {
			b.WriteString("- " + lead(s) + "\n")
		}
		b.WriteByte('\n')
	}
	if len(d.Project.Commands) > 0 {
		b.WriteString("Commands:\n\n")
		for _, c := range d.Project.Commands {
			fmt.Fprintf(&b, "- %s: %s\n", lead(c.Name), code(c.Run))
		}
		b.WriteByte('\n')
	}
	patterns(&b, d)

	change := "To change a rule in this file, do not edit the file. Propose the change with the `propose_guardrail` tool if you are allowed to; a human decides."
	if nm {
		change = "To change a rule in this file, do not edit the file. Ask the human to propose the change; a human decides."
	} else {
		b.WriteString("## What you may do through Bridle\n\n")
		allowed, denied := permissions(d, in.Agent)
		for _, a := range allowed {
			b.WriteString("- YES: " + a + "\n")
		}
		for _, a := range denied {
			b.WriteString("- NO: " + a + "\n")
		}
		b.WriteByte('\n')
	}
	b.WriteString("## If you are unsure\n\n")
	steps(&b,
		"Do not guess.",
		"Ask the human one short, specific question.",
		"Wait for the answer before you go on.",
		change,
	)
	return []byte(strings.TrimRight(b.String(), "\n") + "\n")
}

func steps(b *strings.Builder, items ...string) {
	for i, s := range items {
		fmt.Fprintf(b, "%d. %s\n", i+1, s)
	}
	b.WriteByte('\n')
}

func rule(b *strings.Builder, label string, g *schema.Guardrail, p schema.AgentProfile) {
	fmt.Fprintf(b, "- **%s** `%s`: %s\n", label, g.ID, text(g.Statement))
	if g.Rationale != "" {
		b.WriteString("  - Why: " + text(g.Rationale) + "\n")
	}
	b.WriteString(enforcedLine(g, p))
}

func origin(b *strings.Builder, g *schema.Guardrail) {
	b.WriteString("  - Origin: " + Origin(g.Provenance) + ".\n")
}

// span names n numbered rules with prefix p: "R1 to R5" inside many (a
// format with one %s), or one when there is a single rule ("rule R1", not
// "R1 to R1").
func span(p string, n int, many, one string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf(many, fmt.Sprintf("%s1 to %s%d", p, p, n))
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
