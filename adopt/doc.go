// Package adopt turns the agent files a project already has into its first
// Bridle rules: a schema.Document (and its bridle.yaml) and a loss report.
// It is pure: it reads the files it is given and writes nothing; bridle
// import commits the result as bridle init does.
//
// What it reads (Find): every instruction file the agents registry knows a
// harness reads (CLAUDE.md, AGENTS.md, GEMINI.md, QWEN.md,
// .github/copilot-instructions.md, and every rule in the directories whose
// rule Bridle renders: .cursor/rules/*.mdc, .windsurf/rules/*.md,
// .github/instructions/*.instructions.md), Cline's, Aider's and the legacy
// single files (.clinerules, CONVENTIONS.md, .cursorrules, .windsurfrules),
// the same root files nested in subdirectories, the native enforcement
// Bridle renders for Claude Code (.claude/settings.json permissions), Codex
// (.codex/rules/*.rules prefix_rule) and OpenCode (opencode.json(c)
// permission), the harnesses' MCP configurations and Claude Code's skills,
// commands and subagents.
//
// Promises:
//   - Deterministic: the same files, in any order, give a byte-identical
//     bridle.yaml. No model is used.
//   - Markdown is read with goldmark's AST. A paragraph's sentences and a
//     list item's text are rules when they instruct (must, must not,
//     never, always, do not → hard-instruction; should, prefer, avoid →
//     guidance; always, never, do not, prefer and avoid only where an
//     instruction starts — a clause's first word, after you or a modal —
//     so "the main branch is always deployable" describes; words in code
//     spans and questions do not count),
//     conventions when a list item does not, and the overview when a
//     paragraph does not. Commands come from
//     shell fences and code spans that read as commands; stack from the
//     items under a stack heading. Tables, quotes and other code are kept
//     in the overview as written.
//   - Each guardrail keeps its statement as written (made inert as one
//     markdown line), an id from its words (no- for a negative rule; -2, -3
//     in file order on a collision), provenance source: user, and a comment
//     above it naming every file:line it came from (the schema has no field
//     for a position). The same rule stated twice (the same normalised
//     words and polarity) is one item; a rule and its opposite ("always X"
//     against "never X"), or two commands named alike in two files, are
//     both kept and reported as a Conflict for a person to settle.
//   - A native rule becomes the enforce block of the hard rule that names
//     its command or glob, or a rule of its own.
//   - Nothing is silently dropped: what bridle.yaml cannot carry (scoped
//     rules, @ imports, HTML, hooks, grants, MCP servers, skills, what the
//     schema refuses, an agent file that is a link out of the project,
//     which Find names and is not read) is a Loss with its file:line, the reason and its
//     original text (withheld where it holds a credential; MCP servers by
//     name only).
//   - The document validates with schema.Load with no errors: what the
//     validator refuses is moved to the loss report.
//   - Line endings (CRLF, CR) are read as line feeds; a position is the
//     file's own line number, front matter counted.
//   - Hostile input gets a clear error or a loss entry, never a panic: a
//     file over MaxFileSize, all files over MaxTotalSize (ErrTooLarge), NUL
//     bytes (ErrBinary); invalid UTF-8 is read as U+FFFD and reported;
//     nesting beyond 64 lists or quotes is reported, not walked. A
//     credential in an instruction file (a known token shape, a password in
//     a URL or connection string, or a value the redactor knows) refuses
//     the import with ErrSecret and its file:line, never its value.
package adopt
