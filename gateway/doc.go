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
//   - Every refusal of the MCP endpoint is the same bare 401; repeated
//     failures from one address are slowed to 429; bodies are size-limited;
//     a browser's cross-origin request is refused (Origin is checked) and a
//     loopback listener refuses a non-loopback Host (DNS rebinding).
//   - The admin API (/api/v1) takes a separate admin credential, stored
//     hashed; every mutating call is an audit event with source "user".
//   - Tokens, the admin credential and every known secret never appear in a
//     response, a log line or a metric label.
//   - Shutdown lets in-flight calls finish.
package gateway
