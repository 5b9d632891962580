package codex

import (
	"testing"

	"askuser/socketproto/previewform"
)

func TestApplyPatchIsDrawnAsItsPatch(t *testing.T) {
	if got := PreviewForm("apply_patch"); got != previewform.Patch {
		t.Errorf("apply_patch: %q", got)
	}
	if got := PreviewForm("Bash"); got != "" {
		t.Errorf("Bash: %q", got)
	}
}
