package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"askuser/socketproto"
)

// writePendingTable prints one line per request, oldest first as the daemon
// sends them.
func writePendingTable(w io.Writer, pending []socketproto.Pending, now time.Time) {
	if len(pending) == 0 {
		fmt.Fprintln(w, "No questions waiting.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tAGE\tAGENT\tQUESTION")
	for _, p := range pending {
		q := ""
		if len(p.Questions) > 0 {
			q = clip(p.Questions[0].Question, 60)
			if n := len(p.Questions) - 1; n > 0 {
				q += fmt.Sprintf(" (+%d more)", n)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.RequestID, p.Status, age(now, p.CreatedAt), agentName(p.Agent), q)
	}
	tw.Flush()
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
			}
			if q.IsMulti() {
				fmt.Fprintln(w, "       (several may be chosen)")
			}
		}
	}
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

// flatText flattens agent-supplied text onto one line and drops control
// characters, so that a question cannot rewrite the user's terminal.
func flatText(s string) string {
	return strings.Join(strings.FieldsFunc(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s), unicode.IsSpace), " ")
}

func clip(s string, n int) string {
	s = flatText(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
