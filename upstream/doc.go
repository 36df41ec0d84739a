// Package upstream serves another MCP server's tools through Bridle: an
// existing server (Gitea's gitea-mcp, say) run as a stdio child or reached
// over streamable HTTP, with its credentials injected by Bridle, its tools
// registered on an mcp.Server as one run-time toolset, and every call going
// through Bridle's permission, redaction and audit middlewares.
//
// Promises:
//   - Bridle names the tools and decides their permission: NAME_tool, needing
//     FAMILY.read when the upstream marks the tool readOnlyHint and
//     FAMILY.write otherwise, unless Config.Tools says read, write or deny
//     (a denied tool is never registered, so no call can reach it). Nothing
//     the upstream sends makes a tool need no permission, another family's
//     permission, or another name.
//   - What the upstream says about its tools is hostile data: a name outside
//     A-Z a-z 0-9 _ - (or too long once prefixed) is skipped, titles and
//     descriptions lose control characters and are cut to length, an input
//     schema over MaxSchema bytes, or not an object schema that resolves
//     without loading anything, is skipped. A tool whose name another
//     toolset holds is refused (logged, skipped): an upstream never shadows a
//     Bridle tool.
//   - What the upstream says about its tools never shows a secret: at every
//     listing (on connecting, after a restart, on list_changed) the title
//     (or the annotations' title), the description and every string and
//     number of the input schema, walked as JSON, pass through the
//     redactor that masks its results (Options.Redactor). A tool whose name,
//     or a key of whose input schema (a property's name), holds a secret is
//     skipped (logged): a name cannot be masked. Output schemas are not
//     served.
//   - A stdio child gets only PATH, HOME, LANG and LC_* from Bridle's
//     environment, plus Config.Env and Config.Secrets: never the rest of it
//     (Bridle's own tokens stay in Bridle). A *_FILE secret is written to a
//     0600 file in a 0700 directory, and the variable names the file. Every
//     secret value read is registered with the redactor, so that no result,
//     error, log line or status shows it.
//   - Start never blocks on the upstream: it connects in the background and
//     registers the tools once listed. A child that exits is restarted with
//     backoff; the call it was serving gets a clear error, and a call made
//     while it restarts waits for it (within the call's timeout). Restart
//     starts a new child with freshly read secrets; Close stops it. A child
//     is stopped by closing its input, then signalling its process group:
//     every process it started goes with it, unless one left the group on
//     purpose (setsid), which Bridle does not chase.
//   - The toolset follows the upstream: on its notifications/tools/list_changed
//     and after every restart the tools are listed again, and when they
//     changed the toolset is replaced, so that Bridle's sessions are told
//     (notifications/tools/list_changed).
//   - Each call is bounded: Config.CallTimeout (default 60 s) and
//     Config.MaxResult (default 1 MiB of JSON); past either, the agent gets a
//     tool error saying which. Only a result's content, structured content
//     and error flag are passed on.
package upstream
