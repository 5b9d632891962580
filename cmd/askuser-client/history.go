package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"askuser/internal/history"
	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

// historyCommand reads history.jsonl straight from the state dir: no daemon
// is needed, so it works while none runs.
var historyCommand = command{
	name:     "history",
	summary:  "show the requests resolved lately (history.jsonl)",
	synopsis: "history [-n N] [--json] [--config FILE]\n\nNewest last. -n 0 shows everything.",
	daemon:   configOnly,
	args:     noArgs,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		n := fs.Int("n", 20, "how many of the newest requests to show (0: all)")
		asJSON := fs.Bool("json", false, "one JSON object per line, as stored")
		return func(x *invocation) error {
			if *n < 0 {
				return usagef("-n: need 0 or more, got %d", *n)
			}
			cfg, err := x.config()
			if err != nil {
				return err
			}
			path := filepath.Join(cfg.StateDir(), history.File)
			lines, skipped, err := history.Last(path, *n)
			if errors.Is(err, os.ErrNotExist) || (err == nil && len(lines) == 0 && skipped == 0) {
				fmt.Fprintln(x.stdout, "No history yet.")
				return nil
			}
			if err != nil {
				return err
			}
			if skipped > 0 {
				fmt.Fprintf(x.stderr, "askuser-client history: skipped %d damaged lines in %s\n", skipped, path)
			}
			w := bufio.NewWriter(x.stdout)
			for i, e := range lines {
				if *asJSON {
					w.Write(agenttext.EscapeJSON(e.Raw))
					w.WriteByte('\n')
					continue
				}
				if i > 0 {
					w.WriteByte('\n')
				}
				writeHistoryEntry(w, e.Entry)
			}
			return w.Flush()
		}
	},
}

// historyWidth is where history wraps a long question or answer: a
// 2,000-character answer is read on several lines, not one that runs off
// the screen.
const historyWidth = 100

// writeHistoryEntry prints one request: "time  via  agent  id", then one
// "  question: answer" line per question, wrapped at historyWidth with the
// rest indented.
func writeHistoryEntry(w io.Writer, e history.Entry) {
	via := string(e.Via)
	switch e.Outcome {
	case socketproto.OutcomeAnswered:
	case socketproto.OutcomeWithdrawn:
		via = "withdrawn by its agent"
		if e.Settled != "" {
			via = "settled in the agent's own prompt"
		}
	default:
		via = string(e.Outcome) + " via " + via
	}
	fmt.Fprintf(w, "%s  %s  %s  %s\n", e.Time.Local().Format(time.DateTime), via, agentLabel(e.Agent), flatText(e.RequestID))
	for _, q := range e.Questions {
		ans, ok := e.AnswersByQuestion[q.Question]
		if e.Outcome != socketproto.OutcomeAnswered || !ok {
			ans = "(" + string(e.Outcome) + ")"
			if e.Settled != "" {
				ans = "(" + e.Settled + ")"
			}
		}
		writeWrapped(w, "  ", flatText(q.Question)+": "+flatText(ans))
	}
	for _, a := range e.Answers {
		if a.Notes != "" {
			writeWrapped(w, "  ", fmt.Sprintf("(notes on %q: %s)", flatText(a.Question), flatText(a.Notes)))
		}
	}
}

// writeWrapped writes text after indent, broken at spaces so that no line
// is wider than historyWidth (a word longer than that is cut), the lines
// after the first indented two more.
func writeWrapped(w io.Writer, indent, text string) {
	prefix := indent
	for {
		room := max(historyWidth-len([]rune(prefix)), 20)
		r := []rune(text)
		if len(r) <= room {
			fmt.Fprintf(w, "%s%s\n", prefix, text)
			return
		}
		cut := room
		for i := room; i > room/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
		fmt.Fprintf(w, "%s%s\n", prefix, strings.TrimRight(string(r[:cut]), " "))
		text = strings.TrimLeft(string(r[cut:]), " ")
		prefix = indent + "  "
	}
}

// agentLabel names both the agent and its id: history is where a user looks
// for which session asked.
func agentLabel(a *socketproto.Agent) string {
	switch {
	case a == nil || (a.Name == "" && a.ID == ""):
		return "(unknown agent)"
	case a.Name == "":
		return flatText(a.ID)
	case a.ID == "":
		return flatText(a.Name)
	}
	return flatText(a.Name) + " (" + flatText(a.ID) + ")"
}
