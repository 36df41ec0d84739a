// Package mcp is `bridle mcp`: the stdio MCP server each coding agent
// launches. It serves the compiled rules snapshot to the connecting agent,
// and every later toolset (proposals, memory, patterns, kanboard) plugs into
// the same registry.
//
// Promises:
//   - Identity is resolved per request: the agent bound at launch (--agent,
//     BRIDLE_AGENT), else the client's clientInfo.name through the profiles'
//     mcp_clients, else "unknown" with no permissions.
//   - One permission middleware hides from tools/list every tool the agent
//     may not use and refuses it on tools/call, naming the missing
//     permission; it does the same for every tool of a toolset whose
//     service is not set up. Handlers never check permissions themselves,
//     and tools added while the server runs (AddToolset) go through it too.
//   - One redaction layer masks every secret value in tool results, resource
//     contents, audit events and log lines.
//   - Logs go to stderr only; stdout is the protocol. Bad input (malformed
//     JSON-RPC, oversized lines, bad arguments) gets an error and the server
//     keeps serving; the end of input ends it.
//   - The snapshot is compiled on first use, re-checked at most every
//     Options.Refresh, cached per commit, and served stale (and said so)
//     when the rules source cannot be read.
package mcp
