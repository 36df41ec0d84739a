package schema

// Unapproved is one part of the served rules that no approved merge
// produced: a direct commit, a fast-forward that bypassed approval, a merge
// that changed more than its proposal, or an uncommitted edit. The compiler
// finds them by walking the rules repository's history; they are served and
// rendered as unapproved and grant nothing the approved state did not.
type Unapproved struct {
	// Subject names the part: guardrail:<id>, pattern:<name>,
	// permissions:<agent>, profile:<agent>, project.<field>,
	// patterns.standard or schema_version.
	Subject string `json:"subject"`
	// Change is added, changed or removed, relative to the approved state.
	Change string `json:"change"`
	// Commit made the change; "" for an uncommitted work tree.
	Commit string `json:"commit,omitempty"`
	// At is when Commit was made (RFC 3339).
	At string `json:"at,omitempty"`
	// Reason says how the change bypassed approval.
	Reason string `json:"reason"`
	// Approved is the approved statement of a guardrail that was changed or
	// removed without approval: it still applies.
	Approved string `json:"approved,omitempty"`
}

// The changes an Unapproved records.
const (
	Added   = "added"
	Changed = "changed"
	Removed = "removed"
)

// Intersect is what both p and q grant: the effective permissions of an
// unapproved change, which may take away but never add.
func (p Permissions) Intersect(q Permissions) Permissions {
	return Permissions{
		Gitea:    ReadWrite{Read: p.Gitea.Read && q.Gitea.Read, Write: p.Gitea.Write && q.Gitea.Write},
		Kanboard: ReadWrite{Read: p.Kanboard.Read && q.Kanboard.Read, Write: p.Kanboard.Write && q.Kanboard.Write},
		Rules:    RulesPermission{Propose: p.Rules.Propose && q.Rules.Propose, Approve: p.Rules.Approve && q.Rules.Approve},
		Secrets:  SecretsAccess{Read: p.Secrets.Read && q.Secrets.Read},
		Memory:   MemoryAccess{Read: p.Memory.Read && q.Memory.Read, Write: p.Memory.Write && q.Memory.Write, Forget: p.Memory.Forget && q.Memory.Forget},
	}
}
