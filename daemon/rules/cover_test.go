package rules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
)

const tree = "/home/u/src/shop"

// bookWith is a rules book in a temporary state dir holding one prefix rule
// per command, made in tree for all agents, as a user's choice makes them.
func bookWith(t *testing.T, commands ...string) *Book {
	t.Helper()
	b := Open(filepath.Join(t.TempDir(), FileName), time.Now)
	for _, c := range commands {
		words, err := Words(c)
		if err != nil {
			t.Fatalf("rule %q: %v", c, err)
		}
		if _, err := b.Add(socketproto.Rule{Tool: ShellTool, Command: Join(words), Match: socketproto.MatchPrefix,
			Dir: tree, Agents: socketproto.AllAgents, MadeVia: "pane"}); err != nil {
			t.Fatalf("rule %q: %v", c, err)
		}
	}
	return b
}

// Each row is a command an agent asks to run in tree, the prefix rule a user
// made from a harmless command ("" for none), and what must happen: a rule
// offered for the command (when no rule is given), or the command answered
// by the rule. The commands are those an attacker found answered on the
// main of issue 28, and their evident siblings.
var coverRows = []struct {
	rule, cmd string
	want      bool
}{
	// Abbreviated long options, and the long forms of listed short flags.
	{"git reset", "git reset --har", false},
	{"git reset", "git reset --hard", false},
	{"git reset", "git reset HEAD~1 --hard", false},
	{"git push", "git push --mirro", false},
	{"git push", "git push --force-w", false},
	{"git push", "git push origin main --forc", false},
	{"rm foo.txt", "rm foo.txt --recur dir", false},
	{"rm foo.txt", "rm foo.txt -r dir", false},
	{"git clean -d", "git clean -d --force", false},
	{"git clean -d", "git clean -d -f", false},
	{"git clean -d", "git clean -df", false},
	{"git branch", "git branch --delete --force x", false},
	{"git branch", "git branch -D x", false},
	{"git branch", "git branch --del --forc x", false},
	{"chmod 644 x", "chmod 644 x --recursive .", false},
	{"chmod 644 x", "chmod 644 x -R .", false},
	// Refspecs that force or delete.
	{"git push", "git push origin +main", false},
	{"git push", "git push origin :main", false},
	{"git push", "git push origin +HEAD:main", false},
	// Arguments that run other programs.
	{"git grep", "git grep -O'touch /tmp/pwned' foo", false},
	{"git grep", "git grep --open-files-in-pager=vi foo", false},
	{"sed -n 1p f", "sed -n 1p f -e '1e touch /tmp/pwned'", false},
	{"sed -n 1p f", "sed -n 1p f --expression=1e", false},
	{"git rebase main", "git rebase main -x 'rm -rf ~'", false},
	{"git rebase main", "git rebase main --exec=make", false},
	{"make test", "make test --eval='$(shell rm -rf ~)'", false},
	{"make test", "make test -E x", false},
	{"tar -xf a.tar", "tar -xf a.tar --to-command='sh -c id'", false},
	{"tar -xf a.tar", "tar -xf a.tar --checkpoint=1 --checkpoint-action=exec=id", false},
	{"git fetch", "git fetch origin --upload-pack='touch /tmp/pwned'", false},
	{"git fetch", "git fetch --upload-pa=x origin", false},
	{"rg foo", "rg foo --pre ./x.sh", false},
	{"git log", "git log -c core.pager=id", false},
	// Paths outside the tree.
	{"sort data.txt", "sort data.txt -o/elsewhere/x", false},
	{"cp a.txt", "cp a.txt -t/elsewhere", false},
	{"cp a.txt", "cp a.txt /elsewhere", false},
	{"cp a.txt", "cp a.txt ../../../elsewhere", false},
	{"tar -xf a.tar", "tar -xf a.tar -C/", false},
	{"echo", "echo a=~/x", false},
	{"echo", "echo ~/x", false},
	{"echo", "echo x:~/y", false},
	// Control characters and look-alikes in the further words.
	{"echo", "echo \"a\nb\"", false},
	{"echo", "echo \"a\rb\"", false},
	{"echo", "echo 'a\x1b[2Jb'", false},
	{"echo", "echo \u202eb", false},
	{"git push", "git push origin \u2010\u2010force", false}, // U+2010 hyphens
	{"git push", "git push origin m\u0430in", false},         // Cyrillic a
	// Quoting, options and values are never further plain words.
	{"go test ./...", "go test ./... -run X", false},
	{"go test ./...", "go test ./... 'api'", true}, // quotes removed: the word is plain
	{"go test ./...", "go test ./... 'a b'", false},
	{"go test ./...", "go test ./... x=1", false},
	// What a prefix rule does cover: its words, then plain operands.
	{"go test ./...", "go test ./...", true},
	{"go test ./...", "go  test './...'", true},
	{"go test ./...", "go test ./... ./api", true},
	{"go test ./...", "go testify", false},
	{"go test ./...", "go test ./...x", false},
	{"git push", "git push origin main", true},
	{"git push", "git push origin feature/x-1", true},
	{"make test", "make test build", true},
	{"cp a.txt", "cp a.txt b.txt", true},
	{"cp a.txt", "cp a.txt /home/u/src/shop/b.txt", true},
	{"git log", "git log HEAD~1", false}, // ~ is no plain operand
	// No rule is offered for these: the command's own words.
	{"", "git reset --har", false},
	{"", "git reset --hard HEAD", false},
	{"", "git push --mirro", false},
	{"", "git push origin +main", false},
	{"", "git push origin :main", false},
	{"", "git push -uf origin main", false},
	{"", "rm foo.txt --recur dir", false},
	{"", "rm -fr build", false},
	{"", "git clean -d --force", false},
	{"", "git branch --delete --force x", false},
	{"", "git branch -df x", false},
	{"", "chmod 644 x --recursive .", false},
	{"", "git grep -O'touch /tmp/pwned' foo", false},
	{"", "sed -n 1p f -e '1e touch /tmp/pwned'", false},
	{"", "sed -ne 1p f", false},
	{"", "git rebase main -x 'rm -rf ~'", false},
	{"", "make test --eval='$(shell rm -rf ~)'", false},
	{"", "tar -xf a.tar --to-command='sh -c id'", false},
	{"", "git fetch origin --upload-pack='x'", false},
	{"", "git -c core.pager=id log", false},
	{"", "find . -name x -exec rm {} +", false},
	{"", "find . -name x -execdir rm", false},
	{"", "go test -exec=./x ./...", false},
	{"", "go test --toolexec ./x ./...", false},
	{"", "sort data.txt -o/elsewhere/x", false},
	{"", "cp a.txt -t/elsewhere", false},
	{"", "tar -xf a.tar -C/", false},
	{"", "go build -o=/usr/local/bin/x", false},
	{"", "echo a=~/x", false},
	{"", "echo \"a\nb\"", false},
	{"", "echo \"a\rb\"", false},
	{"", "echo 'a\x07b'", false},
	{"", "echo 'a\tb'", false},
	{"", "echo '\u202egnp.exe'", false},
	{"", "echo a\u00a0b", false},
	{"", "python3 -c 'print(1)'", false},
	{"", "node -e 'x'", false},
	{"", "npx cowsay", false},
	{"", "env X=1 make", false},
	{"", "xargs rm", false},
	{"", "mkfs.ext4 /dev/sda", false},
	{"", "git stash drop", false},
	// And these are offered.
	{"", "go test ./...", true},
	{"", "git push origin main", true},
	{"", "git status", true},
	{"", "make test", true},
	{"", "sed -n 1p f", true},
	{"", "git log HEAD~1", true},
	{"", "tar -xf a.tar", true},
	{"", "go test -run 'Test.*' ./...", true},
	{"", "cat /home/u/src/shop/go.mod", true},
}

func TestWhatARuleCovers(t *testing.T) {
	for _, row := range coverRows {
		s, err := subject(t, row.cmd, tree+"/api")
		if row.rule == "" {
			if err == nil {
				_, err = Propose(s, "p", tree, "/home/u", defaultLists)
			}
			if got := err == nil; got != row.want {
				t.Errorf("%q: offered a rule: %v, want %v (%v)", row.cmd, got, row.want, err)
			}
			continue
		}
		got := false
		if err == nil {
			got = bookWith(t, row.rule).Match(s, defaultLists) != nil
		}
		if got != row.want {
			t.Errorf("rule %q answers %q: %v, want %v", row.rule, row.cmd, got, row.want)
		}
	}
}

// The remember option's label holds no character that does not show as
// itself, even where the directory, the agent's word, holds one.
func TestLabelNeverRaw(t *testing.T) {
	for _, cwd := range []string{"/home/u/a\x1b[31mb", "/home/u/a\rb", "/home/u/a\u202eb", "/home/u/a\x07"} {
		s, err := subject(t, "go test ./...", cwd)
		if err != nil {
			t.Fatal(err)
		}
		if props, err := Propose(s, "p", cwd, "/home/u", defaultLists); err == nil {
			t.Errorf("cwd %q: offered %q", cwd, props[0].Option.Label)
		}
	}
}

// A rule's id is never given twice: revoked ids, ids in history, and a
// hand edit bringing an old id back.
func TestRuleIDsAreForever(t *testing.T) {
	b := bookWith(t, "go test", "make")
	if ok, err := b.Revoke(2); !ok || err != nil {
		t.Fatalf("revoke: %v %v", ok, err)
	}
	b.Used(1, time.Now())
	r, err := b.Add(socketproto.Rule{Tool: ShellTool, Command: "git status", Match: socketproto.MatchPrefix, Dir: tree, Agents: socketproto.AllAgents})
	if err != nil || r.ID != 3 {
		t.Fatalf("after revoking 2 the next rule is %d (%v), want 3", r.ID, err)
	}
	b.Seen(9) // history names a rule 9, revoked before this file
	r, _ = b.Add(socketproto.Rule{Tool: ShellTool, Command: "ls", Match: socketproto.MatchPrefix, Dir: tree, Agents: socketproto.AllAgents})
	if r.ID != 10 {
		t.Fatalf("after history named 9 the next rule is %d, want 10", r.ID)
	}
	if u := b.List("").Rules[2].RuleUse; u.Answered != 0 {
		t.Errorf("rule 10 starts with %d uses", u.Answered)
	}
	// A fresh daemon reads the counter from the file.
	again := Open(b.Path(), time.Now)
	r, _ = again.Add(socketproto.Rule{Tool: ShellTool, Command: "pwd", Match: socketproto.MatchPrefix, Dir: tree, Agents: socketproto.AllAgents})
	if r.ID != 11 {
		t.Fatalf("after a restart the next rule is %d, want 11", r.ID)
	}
	// A hand edit that gives a rule the revoked id 2 is refused.
	if _, err := again.checkEdit([]socketproto.Rule{{ID: 2, Tool: ShellTool, Command: "make", Match: socketproto.MatchPrefix, Dir: tree, Agents: socketproto.AllAgents}}); err == nil ||
		!strings.Contains(err.Error(), "rules[0].id") {
		t.Errorf("a hand edit reusing id 2: %v", err)
	}
}

// The rules file is read again only when lstat says it changed.
func TestRulesFileReadOnlyWhenChanged(t *testing.T) {
	b := bookWith(t, "go test")
	before := b.seen
	if b.Refresh() || b.seen != before {
		t.Fatalf("an unchanged file was read again")
	}
	s, _ := subject(t, "make", tree)
	if b.Match(s, defaultLists) != nil {
		t.Fatal("make was answered by the rule for go test")
	}
	data := strings.Replace(string(b.last), `"go test"`, `"make"`, 1)
	writeRenamed(t, b.Path(), data)
	if !b.Refresh() {
		t.Fatalf("a saved edit was not read")
	}
	if b.Match(s, defaultLists) == nil {
		t.Fatalf("the edited rule does not answer")
	}
}

func TestPlainOperandGrammar(t *testing.T) {
	for w, want := range map[string]bool{
		"main": true, "./api": true, "a.b_c@d%e,f-g": true, "feature/x": true,
		"-x": false, "+main": false, ":main": false, "a=b": false, "~": false, "a~b": false, "a b": false,
		"a'b": false, "*": false, "$x": false, "": false, "/etc/passwd": false, "../x": false,
		tree + "/ok": true, "a/../../../x": false, "\u0430": false,
	} {
		if got := PlainOperand(w, tree, tree) == nil; got != want {
			t.Errorf("PlainOperand(%q) = %v, want %v", w, got, want)
		}
	}
}

// covers holds the grammar: same words, then plain ones.
func TestCoversExactAndPrefix(t *testing.T) {
	rule := []string{"go", "test"}
	if covers(socketproto.MatchExact, rule, []string{"go", "test", "x"}, tree, tree) {
		t.Error("an exact rule covered a further word")
	}
	if !covers(socketproto.MatchPrefix, rule, []string{"go", "test", "x"}, tree, tree) {
		t.Error("a prefix rule did not cover a plain word")
	}
	if !slices.Equal(rule, []string{"go", "test"}) {
		t.Error("covers changed the rule's words")
	}
}

// writeRenamed saves data at path as most editors do: a new file renamed
// over the old one.
func writeRenamed(t *testing.T, path, data string) {
	t.Helper()
	tmp := path + ".swp"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
