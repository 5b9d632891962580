package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
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
		if approves(p.Questions) {
			// The question may say "with the input shown": here it is
			// not, and the user is told where it is.
			q += " [input not shown: askuser-client show " + p.RequestID + "]"
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

func clip(s string, n int) string {
	s = flatText(s)
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
