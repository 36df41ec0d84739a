package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/bridle-dev/bridle/proposals"
	"github.com/bridle-dev/bridle/redact"
)

// refuseSecrets checks a proposal tool's arguments before anything is made:
// a proposal is committed to a branch, rendered into every agent's file and
// copied into the commit message and the pull request body, so a secret in
// it cannot be masked afterwards. It names every field holding one, in the
// agent's own argument paths, and never the value. The error wraps
// proposals.ErrBadInput and redact.ErrSecret.
func refuseSecrets(red *redact.Redactor, tool string, args json.RawMessage) error {
	var v any
	if len(args) == 0 || json.Unmarshal(args, &v) != nil {
		return nil // the schema check has refused it already
	}
	var errs []error
	walkStrings(v, "", func(path, str string) {
		if err := red.Check(path, str); err != nil {
			errs = append(errs, err)
		}
	})
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s refused, nothing was created: %w; %w — remove it (refer to the secret by its variable name instead)",
		tool, proposals.ErrBadInput, errors.Join(errs...))
}

// walkStrings calls f for every string in v (keys too), with its path
// (example_repos[0].url), map keys in sorted order.
func walkStrings(v any, path string, f func(path, s string)) {
	switch x := v.(type) {
	case string:
		f(path, x)
	case []any:
		for i, e := range x {
			walkStrings(e, path+"["+strconv.Itoa(i)+"]", f)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			f(p+" (the key)", k)
			walkStrings(x[k], p, f)
		}
	}
}
