// Package panel is Bridle's web panel: the admin's pages over the gateway
// (bridle serve), served by the same binary from embedded templates and one
// embedded stylesheet.
//
// The panel is a client of the gateway's admin API and nothing else: every
// page and every action is a request to the API's http.Handler, in process,
// as the signed-in person (the admin credential of a break-glass session,
// or the person a sign-in named, in the request's context), so
// authorization, validation, redaction and the audit log are exactly the
// API's. It holds no backend of
// its own and cannot write the rules: editing them opens a proposal.
//
// What it promises:
//   - Without a session every page redirects to /login (a GET) or answers
//     401 (anything else). The admin credential typed at /login is kept only
//     in the server-side session; the browser holds a random session id in
//     an HttpOnly, SameSite=Strict cookie (Secure under TLS).
//   - With an identity provider configured (gateway.SignIn), /login offers
//     "Sign in with NAME": /auth/login and /auth/callback run the
//     authorization code flow with PKCE (S256); state and nonce are
//     single-use and bound to the browser by a short-lived pre-session
//     cookie; the ID token is verified against the provider's keys, issuer,
//     audience and expiry; the session is bound to the person it names
//     (actor.ViaOIDC). No token the provider gives and not the client
//     secret is kept, logged or shown. The provider down at sign-in is a
//     page saying so; sessions already made go on without it.
//   - Every page and form is an entry of one table (panel.go) that declares
//     the role it needs (gateway.Role); below it, the answer is 403 saying
//     which role it takes. The role is the API's answer for the session's
//     person at each request (/api/v1/me), so a change of the roles holds
//     from the person's next request.
//   - Every state-changing form carries the session's CSRF token and is
//     refused (403) without it; /login's ?next= goes to local paths only.
//   - Failed sign-ins count against the gateway's own limit on failed
//     credentials (the API's 429), per client address.
//   - Every response carries a Content-Security-Policy without any script:
//     the pages need none (forms, and a streamed page for re-index progress).
//   - A secret's value is typed once into a password field and posted to
//     the admin API; no page, form value, redirect, flash or log line
//     carries it afterwards (a form drawn again after an error has its
//     value field empty). The Secrets page shows names, where each lives,
//     keyed fingerprints, dates and consumers, and says how to set up a
//     vault that cannot store secrets yet.
//   - Text that agents, vendors or upstreams wrote (guardrails, rationales,
//     memories, pattern descriptions, diffs; consumers' names from the
//     configuration) is shown as inert, escaped text, never as markup or
//     Markdown.
package panel
