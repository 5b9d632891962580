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
