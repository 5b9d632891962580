package main

import (
	"os/exec"
	"strings"
	"testing"
)

// askuser-client is linked without cgo even where a C compiler is at hand
// (`go install ./cmd/...` on most machines): the hooks start it for every
// prompt, and a dynamically linked binary starts markedly slower. Packages
// net and os/user are what would bring cgo in; socketproto dials and
// peertrust names users without them.
func TestClientLinksWithoutCgo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "runtime/cgo", "net", "os/user":
			t.Errorf("askuser-client depends on %s, which links it with cgo (dynamically)", pkg)
		}
	}
}

// The clients know the daemon only through the wire (socketproto) and the
// files both read (internal/config, internal/history): nothing under daemon/
// is linked into askuser-client or askuser-mcp, so the daemon's insides can
// change without the clients, and the clients stay small.
func TestClientsImportNothingOfTheDaemon(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".", "../askuser-mcp").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "askuser/daemon" || strings.HasPrefix(pkg, "askuser/daemon/") {
			t.Errorf("askuser-client or askuser-mcp depends on %s; what both sides need belongs outside daemon/", pkg)
		}
	}
}
