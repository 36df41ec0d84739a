// Package gateway is `bridle serve`: one control plane for many projects and
// agents, out of the agents' reach.
//
// Promises:
//   - Each configured project is served on its own path, /p/{project}/mcp,
//     by its own MCP server (its rules source, proposals, memory namespace
//     and audit log): a token of project A is refused on project B's path
//     exactly as an unknown token is, and a session of one project is
//     unknown to every other.
//   - The bearer token is the identity: it names one (project, agent); the
//     client's clientInfo is recorded, never trusted. Only a hash of a token
//     is stored; a token is shown once, when it is minted or rotated, and a
//     revoked or rotated-away token fails on its next request.
//   - Every refusal of the MCP endpoint is the same bare 401; an address
//     that failed too often lately (the loopback and an IPv6 /64 are one
//     address each), or a server that answered too many failures from every
//     address together, gets 429 for a wrong credential, while a valid one
//     always passes (one client failing on purpose locks nobody else out); a
//     request with two Authorization headers is refused (400); one token
//     holds at most Options.MaxSessions sessions, counted with the sessions
//     being opened; bodies are size- and time-limited; a browser's cross-origin request is
//     refused (Origin is checked) and a loopback listener refuses a
//     non-loopback Host on every endpoint (DNS rebinding). Revoking or
//     rotating a token closes its sessions.
//   - The admin API (/api/v1) takes a separate admin credential, held as a
//     hash (a generated one is handed over in a file and only its hash is
//     kept); its holder is the break-glass person (actor.BreakGlass, named
//     by admin.name). The request's context carries the actor it was
//     authenticated as, and every mutating call is an audit event naming
//     that actor (source "user"); proposals record it as their origin.
//     Every route declares the least role it needs (viewer, approver,
//     admin; routes()), enforced from the request's actor by one
//     middleware; roles come from auth.roles at every request (SetAuth).
//     The panel reaches the API in process as the person it signed in
//     (actor.With); no HTTP request can be that person. Nobody approves a
//     proposal of their own but auth.sole_maintainer (and, with no
//     provider configured, the admin credential's holder).
//     /readyz says details only to the admin credential.
//   - Tokens (by their shape, even after a restart), the admin credential
//     and every known secret never appear in a response, a log line or a
//     metric label; client-sent names are cut to mcp.MaxClientString.
//   - Only a person approves: an agent's approve_proposal is refused (and
//     audited) whatever the rules grant it. At start, a Gitea project whose
//     bot token can merge into the rules branch (or push to it, or change its
//     protection), or whose upstream is given the bot's token, is warned
//     about in the log.
//   - The gateway serves its own binary, for a self-hosted team's CI, at
//     /download/bridle-linux-amd64 with its sha256 beside it (.sha256), when
//     it runs as linux-amd64 (else 404 saying what to do instead). It is
//     public, like a release page — the binary holds no configuration, token
//     or secret, and its version is /healthz's. It is limited per address
//     (MaxDownloads served a FailureWindow; refusals do not count) and in
//     parallel: MaxAddressDownloads binaries at once to one address,
//     MaxParallelDownloads in all; the checksum takes no slot. A client
//     that reads slower than Options.DownloadRate on average (after
//     Options.DownloadGrace) is cut off, so connections that do not read
//     cannot hold the slots.
//   - Shutdown lets in-flight calls finish.
package gateway
