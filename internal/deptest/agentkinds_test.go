package deptest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"askuser/internal/agents"
)

// kinds are the kinds of agent whose shapes the folders declare
// (agentshape.Shape.Kind), as their permission prompts name them.
var kinds = []string{"claude-code", "codex", "opencode", "acp"}

// nameless are the files outside internal/agents that may still name a
// kind of agent, each for its reason.
var nameless = map[string]string{
	// The demo pane's fixture questions (askuserd --demo) are asked by
	// agents with made-up names, one of them "codex": a name shown, never a
	// kind read.
	"views/demo.go": "fixture data",
}

// An agent is a folder (README "Working on askuser"): what the code knows
// of a kind of agent it reads through internal/agents, so no package
// outside internal/agents/... spells a kind as a string of its own. Test
// files, which name what they test, and testdata are not counted.
func TestOnlyAgentFoldersNameAgentKinds(t *testing.T) {
	for _, k := range kinds {
		if _, ok := agents.Shape(k); !ok {
			t.Errorf("%q is no kind of agent internal/agents knows; this test's list is out of date", k)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, k := range kinds {
		named[k] = true
	}
	seen := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		if d.IsDir() {
			switch {
			case rel == "internal/agents", d.Name() == "testdata", d.Name() != "." && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || nameless[rel] != "" {
			return nil
		}
		seen++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && named[s] {
				t.Errorf("%s:%d names the kind of agent %s: only its folder under internal/agents may; read it through internal/agents (agents.Shape)", rel, fset.Position(lit.Pos()).Line, lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("read only %d Go files under %s; the walk lost its way", seen, root)
	}
}
