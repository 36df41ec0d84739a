package schema

// Permission is a permission in dotted form, service.action, as an agent's
// entry under permissions spells it (rules: {propose: true} is
// rules.propose). Permissions.Allows grants it by this name; unknown names
// are never granted. Every field of Permissions has a constant here
// (TestPermissionVocabulary derives the list from the struct itself).
type Permission string

// The permissions of the document, one per field of Permissions.
const (
	PermGiteaRead     Permission = "gitea.read"
	PermGiteaWrite    Permission = "gitea.write"
	PermKanboardRead  Permission = "kanboard.read"
	PermKanboardWrite Permission = "kanboard.write"
	PermRulesPropose  Permission = "rules.propose"
	PermRulesApprove  Permission = "rules.approve"
	PermSecretsRead   Permission = "secrets.read"
	PermMemoryRead    Permission = "memory.read"
	PermMemoryWrite   Permission = "memory.write"
	PermMemoryForget  Permission = "memory.forget"
)
