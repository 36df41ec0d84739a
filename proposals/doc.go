// Package proposals is Bridle's GitOps layer: a change to the rules arrives
// as a proposal — a branch with one commit and a pull request — and merging
// it is the approval. Two backends sit behind one interface: Gitea (the
// production default, through code.gitea.io/sdk/gitea) and a local git
// repository (go-git) that needs no server.
//
// Promises:
//   - A proposal is validated before anything is created; an invalid one is
//     refused with diagnostics and leaves nothing behind.
//   - A failure midway leaves nothing half-made: no branch without its pull
//     request.
//   - Provenance (source, agent, session) comes from the caller's session
//     (Origin), never from proposal content: whatever provenance a proposed
//     guardrail or pattern carries is replaced before anything is recorded
//     or shown; approval fields are never taken from a proposer. A vendor
//     sync's proposal is the vendor's; who ran the sync only started it.
//   - Only a person approves: Approve refuses an agent (ErrAgentApproval, or
//     ErrSelfApproval for its own proposal), whatever the rules grant it, and
//     a person their own proposal unless they choose to (SelfOK), which the
//     merge then records.
//   - Branch names, titles and trailers built from agent text are sanitised.
//   - A change touches only its own lines of bridle.yaml: the entries it adds
//     or replaces are written into the document's text, and blank lines,
//     comments, quoting and key order elsewhere stay byte for byte (a
//     document shaped so that this cannot be done is re-encoded whole).
//   - Changes apply at the document level, so a proposal can be re-applied to
//     a newer main ("a guardrail added is still a guardrail added"), or is
//     reported as a real conflict saying what conflicts.
package proposals
