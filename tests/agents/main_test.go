// Package agents holds the end-to-end tests that run the real agents
// (Claude Code, pi, Codex, OpenCode, Gemini CLI and the ACP adapters, at the
// versions tests/agents.txt pins) against a scripted fake model, asking
// through askuser.
package agents

import (
	"os"
	"testing"

	"askuser/tests/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Main(m, "askuser/tests/agents")) }
