// Package pi is all askuser knows of pi (docs/contract.md §11): its extension
// (askuser.ts, embedded) and what `askuser-client integrate pi` writes.
package pi

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"askuser/internal/integrate"
)

// piDefaultClient is the line of the extension that names the client; the
// written copy names the absolute path instead.
const piDefaultClient = `const defaultClient = "askuser-client";`

// piExtensionText is the extension as written for this client.
func piExtensionText(client string) ([]byte, error) {
	src := extension
	if !bytes.Contains(src, []byte(piDefaultClient)) {
		return nil, fmt.Errorf("the embedded pi extension has no line %q", piDefaultClient)
	}
	line := "const defaultClient = " + strconv.Quote(client) + ";"
	return bytes.Replace(src, []byte(piDefaultClient), []byte(line), 1), nil
}

func plan(env integrate.Env) ([]integrate.Change, []string, error) {
	dir := os.Getenv("PI_CODING_AGENT_DIR")
	if dir == "" {
		dir = filepath.Join(env.Home, ".pi", "agent")
	}
	path := filepath.Join(dir, "extensions", "askuser.ts")
	old, err := integrate.ReadConfigFile(path)
	if err != nil {
		return nil, nil, err
	}
	text, err := piExtensionText(env.Client)
	if err != nil {
		return nil, nil, err
	}
	snippet := fmt.Sprintf("the askuser extension (%d lines): pi's ask_user tool and /questions, asking through %s\n",
		bytes.Count(text, []byte("\n")), env.Client)
	notes := []string{"pi loads it at its next start (or /reload in a running pi)."}
	return []integrate.Change{{Path: path, Old: old, New: text, Mode: 0o644, Snippet: snippet}}, notes, nil
}

// Integration is what `askuser-client integrate pi` writes (docs/contract.md §11).
var Integration = integrate.Agent{Name: "pi", Plan: plan}
