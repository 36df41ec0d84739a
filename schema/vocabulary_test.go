package schema

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// dottedPermissions derives every permission name from the Permissions
// struct's JSON field names (service.action), and for each the value that
// grants it alone.
func dottedPermissions(t *testing.T) map[string]Permissions {
	t.Helper()
	out := map[string]Permissions{}
	pt := reflect.TypeFor[Permissions]()
	for i := range pt.NumField() {
		svc := pt.Field(i)
		for j := range svc.Type.NumField() {
			act := svc.Type.Field(j)
			if act.Type.Kind() != reflect.Bool {
				t.Fatalf("%s.%s is a %s, not a bool", svc.Name, act.Name, act.Type)
			}
			var p Permissions
			reflect.ValueOf(&p).Elem().Field(i).Field(j).SetBool(true)
			out[jsonName(svc)+"."+jsonName(act)] = p
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// TestPermissionVocabulary: the constants, PermissionNames and Allows agree
// with the Permissions struct, so a misspelt constant or a new field
// without one fails here.
func TestPermissionVocabulary(t *testing.T) {
	doc := dottedPermissions(t)
	names := slices.Sorted(maps.Keys(doc))
	var consts []string
	for _, p := range []Permission{
		PermGiteaRead, PermGiteaWrite, PermKanboardRead, PermKanboardWrite, PermRulesPropose,
		PermRulesApprove, PermSecretsRead, PermMemoryRead, PermMemoryWrite, PermMemoryForget,
	} {
		consts = append(consts, string(p))
	}
	slices.Sort(consts)
	if !slices.Equal(consts, names) {
		t.Errorf("permission constants %v, the document's permissions %v", consts, names)
	}
	if listed := slices.Sorted(slices.Values(PermissionNames)); !slices.Equal(listed, names) {
		t.Errorf("PermissionNames %v, the document's permissions %v", listed, names)
	}
	for name, p := range doc {
		for _, other := range names {
			if got := p.Allows(other); got != (other == name) {
				t.Errorf("only %s granted: Allows(%s) = %v", name, other, got)
			}
		}
	}
	if (Permissions{Rules: RulesPermission{Propose: true}}).Allows("rules.Propose") {
		t.Error("Allows grants a misspelt name")
	}
}
