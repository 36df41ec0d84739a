package vault

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Status is a vault as a whole, never a value: whether it can store
// secrets, and if not, why (what an admin needs to set one up).
type Status struct {
	Scope string `json:"scope"`
	// Dir is the directory of the SOPS file ("": this vault has none, so
	// only Docker secrets, *_FILE and the environment answer).
	Dir string `json:"dir,omitempty"`
	// File says FileName exists in Dir.
	File bool `json:"file"`
	// Recipients are the age recipients ConfigName names (none: bridle
	// secrets init has not been run there).
	Recipients []string `json:"recipients"`
	// Helper is why the SOPS helper cannot be run ("" when it can).
	Helper string `json:"helper,omitempty"`
	// Error is why the SOPS file cannot be opened, or why ConfigName
	// cannot be read.
	Error string `json:"error,omitempty"`
	// Writable says Set, Rotate and Revoke can work now.
	Writable bool `json:"writable"`
}

// Status says what the vault can do now. It waits for a write in progress.
func (v *Scope) Status() Status {
	v.wmu.Lock()
	defer v.wmu.Unlock()
	v.mu.RLock()
	st := Status{Scope: v.o.Scope, Dir: v.o.Dir, File: v.exists, Recipients: slices.Clone(v.file.Recipients)}
	if v.loadErr != nil {
		st.Error = v.loadErr.Error()
	}
	v.mu.RUnlock()
	if st.Dir == "" {
		st.Recipients = []string{}
		return st
	}
	if b, err := os.ReadFile(filepath.Join(st.Dir, ConfigName)); err == nil {
		if rs, err := ParseConfig(b); err != nil && st.Error == "" {
			st.Error = err.Error()
		} else if err == nil && len(st.Recipients) == 0 {
			st.Recipients = rs
		}
	} else if !errors.Is(err, fs.ErrNotExist) && st.Error == "" {
		st.Error = err.Error()
	}
	if st.Recipients == nil {
		st.Recipients = []string{}
	}
	if _, err := v.codec(); err != nil {
		st.Helper = err.Error()
	}
	st.Writable = st.Error == "" && st.Helper == "" && len(st.Recipients) > 0
	return st
}
