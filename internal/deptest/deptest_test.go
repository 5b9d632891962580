package deptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// rule is one line of the layering: the packages it holds for, and the
// imports (transitive, the test's own not counted) they must not have.
type rule struct {
	pkgs   []string // import paths; a trailing /... takes the tree
	why    string
	denied func(dep string) bool
}

var (
	tview    = prefixes("github.com/rivo/tview", "github.com/gdamore/tcell")
	termPane = exactly("askuser/views") // the terminal pane; views/panecore and views/web are not it
	daemon   = tree("askuser/daemon")
	faces    = tree("askuser/views")
	commands = tree("askuser/cmd")
)

var rules = []rule{
	{
		pkgs:   []string{"askuser/views/panecore", "askuser/views/web"},
		why:    "the one core and the web pane know no terminal: no tview, no tcell, not the terminal pane (askuser/views)",
		denied: either(tview, termPane),
	},
	{
		pkgs:   []string{"askuser/cmd/askuser-client", "askuser/cmd/askuser-mcp", "askuser/socketproto/askclient"},
		why:    "the clients know the daemon only through the wire (socketproto) and the files both read (internal/): nothing under daemon/",
		denied: daemon,
	},
	{
		pkgs:   []string{"askuser/daemon/..."},
		why:    "the daemon is the source of truth and knows no face and no command: nothing under views/ or cmd/",
		denied: either(faces, commands),
	},
	{
		pkgs:   []string{"askuser/internal/agents/..."},
		why:    "the daemon reads the agents' shapes from their folders, so a folder knows no daemon and no face: nothing under daemon/ or views/",
		denied: either(daemon, faces),
	},
	{
		pkgs: []string{"askuser/socketproto/..."},
		why:  "the wire is imported by the daemon, the faces and the clients and imports none of them: among askuser's packages only socketproto/... and internal/...",
		denied: func(dep string) bool {
			return tree("askuser")(dep) && !tree("askuser/socketproto")(dep) && !tree("askuser/internal")(dep)
		},
	},
}

func TestImportRules(t *testing.T) {
	var patterns []string
	for _, r := range rules {
		patterns = append(patterns, r.pkgs...)
	}
	pkgs := goList(t, patterns...)
	for _, r := range rules {
		held := 0
		for _, p := range pkgs {
			if p.DepOnly || !slices.ContainsFunc(r.pkgs, func(pat string) bool { return match(pat, p.ImportPath) }) {
				continue
			}
			held++
			for _, dep := range p.Deps {
				if !r.denied(dep) {
					continue
				}
				way := chain(pkgs, p.ImportPath, dep)
				if slices.ContainsFunc(way[1:len(way)-1], r.denied) {
					continue // said once, for the denied package it comes through
				}
				t.Errorf("%s imports %s: %s\n\t%s", p.ImportPath, dep, strings.Join(way, " → "), r.why)
			}
		}
		if held == 0 {
			t.Errorf("no package matches %v: the rule %q holds for nothing", r.pkgs, r.why)
		}
	}
}

// listed is what `go list -json` says of a package, as far as the rules
// need it.
type listed struct {
	ImportPath string
	DepOnly    bool
	Imports    []string
	Deps       []string
}

// goList lists patterns and every package they import, with the go
// command, as tailscale's deptest does.
func goList(t *testing.T, patterns ...string) map[string]*listed {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-json=ImportPath,DepOnly,Imports,Deps"}, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %v: %v\n%s", patterns, err, stderr.String())
	}
	pkgs := map[string]*listed{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list's output: %v", err)
		}
		pkgs[p.ImportPath] = &p
	}
	return pkgs
}

// chain is a shortest import path from one package to another, to say
// where a denied import comes in.
func chain(pkgs map[string]*listed, from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		if at == to {
			var path []string
			for p := to; p != ""; p = prev[p] {
				path = append(path, p)
			}
			slices.Reverse(path)
			return path
		}
		if p := pkgs[at]; p != nil {
			for _, next := range p.Imports {
				if _, seen := prev[next]; !seen {
					prev[next] = at
					queue = append(queue, next)
				}
			}
		}
	}
	return []string{from, "…", to}
}

// match reports whether path is pattern, or under it when pattern ends in
// /... (the go command's form).
func match(pattern, path string) bool {
	if root, ok := strings.CutSuffix(pattern, "/..."); ok {
		return tree(root)(path)
	}
	return path == pattern
}

func tree(root string) func(string) bool {
	return func(p string) bool { return p == root || strings.HasPrefix(p, root+"/") }
}

func exactly(path string) func(string) bool {
	return func(p string) bool { return p == path }
}

func prefixes(roots ...string) func(string) bool {
	return func(p string) bool {
		return slices.ContainsFunc(roots, func(r string) bool { return tree(r)(p) })
	}
}

func either(fs ...func(string) bool) func(string) bool {
	return func(p string) bool {
		return slices.ContainsFunc(fs, func(f func(string) bool) bool { return f(p) })
	}
}
