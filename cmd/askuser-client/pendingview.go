package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rivo/uniseg"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

// listWidth is the widest line list prints: a permission prompt's command
// and the agent's name are clipped to fit, so a table never wraps in a
// terminal that can show it. An id is never clipped: it is what answer
// takes.
const listWidth = 100

// writePendingTable prints one line per request, oldest first as the daemon
// sends them, at most listWidth columns (an id longer than the rest leaves
// can go past). A request whose input is not shown says so in a line under
// the table, with the command that shows it.
func writePendingTable(w io.Writer, pending []socketproto.Pending, now time.Time) {
	if len(pending) == 0 {
		fmt.Fprintln(w, "No questions waiting.")
		return
	}
	const gap = 2
	rows := [][]string{{"ID", "STATUS", "AGE", "AGENT"}}
	var hidden []string
	for _, p := range pending {
		rows = append(rows, []string{p.RequestID, string(p.Status), age(now, p.CreatedAt), clipWidth(agentName(p.Agent), 20)})
		if approves(p.Questions) {
			hidden = append(hidden, p.RequestID)
		}
	}
	widths := make([]int, 4)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], uniseg.StringWidth(c))
		}
	}
	room := listWidth
	for _, n := range widths {
		room -= n + gap
	}
	room = max(room, 24)
	for i, r := range rows {
		q := "QUESTION"
		if i > 0 {
			q = questionCell(pending[i-1], room)
		}
		var b strings.Builder
		for j, c := range r {
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[j]-uniseg.StringWidth(c)+gap))
		}
		b.WriteString(q)
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	for _, id := range hidden {
		// The question may say "with the input shown": here it is not,
		// and the user is told where it is.
		fmt.Fprintln(w, "input not shown: askuser-client show "+id)
	}
}

// questionCell is a request's first question in width columns, with how
// many more follow and whether its input is left out.
func questionCell(p socketproto.Pending, width int) string {
	if len(p.Questions) == 0 {
		return ""
	}
	var tail string
	if n := len(p.Questions) - 1; n > 0 {
		tail = fmt.Sprintf(" (+%d more)", n)
	}
	if approves(p.Questions) {
		tail += " [input not shown]"
	}
	return clipWidth(p.Questions[0].Question, max(width-uniseg.StringWidth(tail), 12)) + tail
}

// writePendingDetail prints every question of every request with its options.
func writePendingDetail(w io.Writer, pending []socketproto.Pending, now time.Time) {
	for i, p := range pending {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s  %s, asked by %s %s ago\n", p.RequestID, p.Status, agentName(p.Agent), age(now, p.CreatedAt))
		for j, q := range p.Questions {
			fmt.Fprintf(w, "  %d. %s\n", j+1, flatText(q.Question))
			for k, o := range q.Options {
				fmt.Fprintf(w, "       %d) %s\n", k+1, flatText(o.Label))
				if o.ApprovesPreview {
					fmt.Fprintf(w, "          approves an input not shown here (%s): askuser-client show %s\n", lineCount(o.Preview), p.RequestID)
				}
			}
			if q.IsMulti() {
				fmt.Fprintln(w, "       (several may be chosen)")
			}
		}
	}
}

// approves reports whether some option of qs approves its preview: its
// input is then printed only whole, by show.
func approves(qs []socketproto.Question) bool {
	for _, q := range qs {
		for _, o := range q.Options {
			if o.ApprovesPreview {
				return true
			}
		}
	}
	return false
}

func agentName(a *socketproto.Agent) string {
	if name := a.DisplayName(); name != "" {
		return flatText(name)
	}
	return "-"
}

func age(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// agentText is text an agent sent (a question, a label, a preview), made
// safe to print on a terminal by the one sanitiser every surface uses
// (docs/contract.md §6 "Untrusted text"): the CLI shows what the pane shows.
// Newlines are kept.
func agentText(s string) string { return agenttext.Clean(s, true) }

// flatText is agent text on one line: sanitised as agentText, its
// newlines and runs of spaces folded into single spaces.
func flatText(s string) string {
	return strings.Join(strings.Fields(agenttext.Clean(s, false)), " ")
}

// clipWidth is s on one line in at most n terminal columns, ending in "…"
// when cut.
func clipWidth(s string, n int) string {
	s = flatText(s)
	if uniseg.StringWidth(s) <= n {
		return s
	}
	var b strings.Builder
	used := 0
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		if used+g.Width() > n-1 {
			break
		}
		used += g.Width()
		b.WriteString(g.Str())
	}
	return b.String() + "…"
}

func clip(s string, n int) string {
	s = flatText(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
