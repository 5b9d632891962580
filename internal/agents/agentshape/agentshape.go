// Package agentshape is what the core reads of a kind of agent: the name
// its permission prompts carry, its name for people, and how the preview
// of its shell tool's prompt reads as one command for the rules engine
// (docs/contract.md §13). Each agent's folder declares its Shape and the
// list in internal/agents gathers them, so that the daemon and the
// sentences people read never switch on an agent's name. It names no
// agent itself.
package agentshape

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Shape is one kind of agent as the core reads it.
type Shape struct {
	// Kind is the kind of agent, as a permission prompt names it
	// (socketproto.PermissionPrompt.Agent) and a rule's agents field.
	Kind string
	// Words names the kind for people, in a rule's sentence.
	Words string
	// ShellTool is the agent's own name for the tool that runs a shell
	// command: the one tool whose prompts a rule may remember.
	ShellTool string
	// ShellCommand reads the command that would run from ShellTool's
	// Allow preview, the text the user approves; an error says why it is
	// none a rule covers.
	ShellCommand func(preview []byte) (string, error)
}

// DecodeStrict decodes exactly one JSON value from b into v, refusing
// unknown keys where v is a struct: a preview a rule covers holds what the
// shape reads and nothing that could change what runs.
func DecodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, isMap := v.(*map[string]json.RawMessage); !isMap {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one value")
	}
	return nil
}
