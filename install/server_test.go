package install

import (
	"errors"
	"testing"

	"github.com/bridle-dev/bridle/bridge"
)

func TestInstallServerNeedsAProject(t *testing.T) {
	_, err := Install(Options{Client: "claude", ProjectDir: t.TempDir(), Server: "https://bridle.example.com"})
	if !errors.Is(err, bridge.ErrOptions) {
		t.Errorf("no gateway project: %v", err)
	}
}
