package rules

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// plainByHand is the grammar of a plain operand written once more, apart
// from PlainOperand, for the property below to check it against.
var plainByHand = regexp.MustCompile(`^[A-Za-z0-9._/@%,][A-Za-z0-9._/@%,-]*$`)

// Pieces of further words, in the styles programs read arguments in:
// options short, long and one-dash, values after =, quotes, ~, globs,
// refspecs, paths in and out of the tree, control characters and Unicode
// look-alikes.
var wordPieces = []string{
	"main", "x", "./api", "build", "a.txt", "feature/x", "v1.2", "50%", "a,b", "user@host", "-", "_",
	"-f", "-rf", "--force", "--forc", "-O", "-exec", "--eval=", "-e", "+", ":", "=", "~", "~/", "*", "?", "[a]",
	"'", "\"", "\\", "'a b'", "\"a\"", "$x", "$(id)", "`id`", ";", "&", "|", ">", "<", "(", ")", "{a,b}", "#", "!",
	"/", "/etc", "..", "../..", tree, "\n", "\r", "\t", "\x1b", "\x00", "\u202e", "\u200b", "\u00a0",
	"\u2010", "\u2212", "\u0430", "\uff0f", "\ufe63", "é",
}

// randomWord is a further word made of one to three pieces.
func randomWord(r *rand.Rand) string {
	var b strings.Builder
	for range 1 + r.IntN(3) {
		b.WriteString(wordPieces[r.IntN(len(wordPieces))])
	}
	return b.String()
}

// shWords is how sh itself splits cmd into words, after every expansion:
// the oracle the parser is checked against. It runs nothing: "set --"
// takes the words as arguments, PATH is empty and the directory is empty,
// so even a substitution the parser wrongly let through finds no program.
func shWords(t *testing.T, cmd string) ([]string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "/bin/sh", "-c", "set -- "+cmd+"\nprintf '%s\\0' \"$@\"")
	c.Dir = t.TempDir()
	c.Env = []string{"PATH=", "HOME=/nonexistent-home"}
	out, err := c.Output()
	if err != nil {
		return nil, false
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"), true
}

// The property of issue 28: a rule covers a command only when the words
// sh would run are the rule's words followed by words of the plain grammar.
// Commands are generated: a rule's command, then further words in every
// style above, joined with varying spaces.
func TestCoveredMeansShownProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 13))
	rulesFor := []string{"git push", "go test ./...", "make test", "rm foo.txt", "sed -n 1p f", "tar -xf a.tar", "echo"}
	b := bookWith(t, rulesFor...)
	covered, n := 0, 1500
	if testing.Short() {
		n = 300
	}
	for range n {
		rule := rulesFor[r.IntN(len(rulesFor))]
		var cmd strings.Builder
		cmd.WriteString(rule)
		for range r.IntN(4) {
			cmd.WriteString(strings.Repeat(" ", 1+r.IntN(2)))
			cmd.WriteString(randomWord(r))
		}
		s, err := subject(t, cmd.String(), tree)
		if err != nil || b.Match(s, defaultLists) == nil {
			continue
		}
		covered++
		ruleWords, _ := Words(rule)
		got, ok := shWords(t, cmd.String())
		if !ok || !slices.Equal(got, s.Words) {
			t.Fatalf("%q: sh reads the words %q, askuser %q", cmd.String(), got, s.Words)
		}
		if !slices.Equal(got[:len(ruleWords)], ruleWords) {
			t.Fatalf("%q covered by %q: the rule's words are not its first", cmd.String(), rule)
		}
		for _, w := range got[len(ruleWords):] {
			if !plainByHand.MatchString(w) || (strings.HasPrefix(w, "/") && !Within(w, tree)) || climbs(w) && !Within(resolve(w, tree), tree) {
				t.Fatalf("%q covered by %q: %q is not a plain operand", cmd.String(), rule, w)
			}
		}
	}
	// The generator must reach both sides, or the property says nothing.
	if covered < n/20 || covered > n*3/4 {
		t.Fatalf("%d of %d generated commands were covered: the generator is off", covered, n)
	}
	t.Logf("%d of %d generated commands covered, each checked against sh", covered, n)
}

// FuzzCovers: whatever the command, what a rule covers has the rule's words
// first and plain operands after (go test -fuzz FuzzCovers ./daemon/rules).
func FuzzCovers(f *testing.F) {
	for _, row := range coverRows {
		f.Add(row.cmd)
	}
	f.Add("git push origin main")
	f.Fuzz(func(t *testing.T, cmd string) {
		b := bookWith(t, "git push", "go test ./...")
		s, err := subject(t, cmd, tree)
		if err != nil {
			return
		}
		rule := b.Match(s, defaultLists)
		if rule == nil {
			return
		}
		ruleWords, _ := Words(rule.Command)
		if !slices.Equal(s.Words[:len(ruleWords)], ruleWords) {
			t.Fatalf("%q: covered by %q", cmd, rule.Command)
		}
		for _, w := range s.Words[len(ruleWords):] {
			if !plainByHand.MatchString(w) || bytes.ContainsAny([]byte(w), "=~") {
				t.Fatalf("%q covered by %q: %q is not plain", cmd, rule.Command, w)
			}
		}
	})
}
