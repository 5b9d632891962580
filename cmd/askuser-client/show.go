package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/askclient"
	"askuser/socketproto/previewform"
)

const showSynopsis = `show ID [--json] [flags]

Prints the whole request: who asked, every question, every option with its
description, and every preview whole. An option that approves its preview
(a permission prompt's Allow approves the tool's whole input) is followed by
its digest: answer passes it with --digest to say the approval is of what
was shown here (docs/contract.md §3, §7).`

var showCommand = command{
	name:     "show",
	summary:  "print a waiting request whole, with the digest an approval needs",
	synopsis: showSynopsis,
	daemon:   reachDaemon,
	args:     oneID,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		asJSON := fs.Bool("json", false, "print the request as JSON, with \"approvals\": each approving option's previewDigest")
		return func(x *invocation) error {
			c, err := x.client()
			if err != nil {
				return err
			}
			p, err := findPending(c, x.args[0])
			if err != nil {
				return err
			}
			if *asJSON {
				return writeShowJSON(x.stdout, p)
			}
			writeRequest(x.stdout, p, time.Now())
			return nil
		}
	},
}

// findPending is the waiting request id, as the daemon lists it.
func findPending(c *askclient.Client, id string) (socketproto.Pending, error) {
	pending, err := c.List(context.Background())
	if err != nil {
		return socketproto.Pending{}, err
	}
	for _, p := range pending {
		if p.RequestID == id {
			return p, nil
		}
	}
	return socketproto.Pending{}, notWaiting{id}
}

// notWaiting: the daemon lists no request of that id.
type notWaiting struct{ id string }

func (e notWaiting) Error() string {
	return fmt.Sprintf("no request %q is waiting (askuser-client list shows those that are)", e.id)
}

// approval is one option that approves its preview, as show --json lists it.
// Question and option count from 1, as answer takes them (answer ID 1 is
// the first option) and as show prints them.
type approval struct {
	Question      int    `json:"question"` // 1 is the first question
	Option        int    `json:"option"`   // 1 is the question's first option
	Label         string `json:"label"`
	PreviewDigest string `json:"previewDigest"`
}

func approvals(p socketproto.Pending) []approval {
	out := []approval{}
	for i, q := range p.Questions {
		for j, o := range q.Options {
			if o.ApprovesPreview {
				out = append(out, approval{i + 1, j + 1, o.Label, socketproto.PreviewDigest(o.Preview)})
			}
		}
	}
	return out
}

// writeShowJSON prints the request as list --json has it, plus its
// approvals. Its text is the agent's, escaped where a terminal would obey it.
func writeShowJSON(w io.Writer, p socketproto.Pending) error {
	return writeJSON(w, struct {
		socketproto.Pending
		Approvals []approval `json:"approvals"`
	}{p, approvals(p)})
}

// writeRequest prints the whole request for a person: nothing the agent
// sent is cut, and every approving option's preview is printed whole
// before its digest, so the digest is only had by showing it.
func writeRequest(w io.Writer, p socketproto.Pending, now time.Time) {
	fmt.Fprintf(w, "%s  %s, asked by %s %s ago\n", p.RequestID, p.Status, agentLabel(p.Agent), age(now, p.CreatedAt))
	if p.Agent != nil && p.Agent.Cwd != "" {
		fmt.Fprintf(w, "  in %s\n", flatText(p.Agent.Cwd))
	}
	if len(p.Metadata) > 0 && string(p.Metadata) != "null" {
		fmt.Fprintf(w, "  metadata: %s\n", flatText(string(p.Metadata)))
	}
	for i, q := range p.Questions {
		q = socketproto.ApplyInput(q)
		fmt.Fprintln(w)
		head := ""
		if q.Header != "" {
			head = "[" + flatText(q.Header) + "] "
		}
		writeIndented(w, fmt.Sprintf("%d. ", i+1), "   ", head+agentText(q.Question))
		if q.Input != nil {
			fmt.Fprintf(w, "   answer: %s\n", flatText(q.Input.Rule()))
		}
		for j, o := range q.Options {
			writeIndented(w, fmt.Sprintf("   %d) ", j+1), "      ", agentText(o.Label))
			if o.Description != "" {
				writeIndented(w, "      ", "      ", agentText(o.Description))
			}
			if o.Preview == "" {
				continue
			}
			if !o.ApprovesPreview {
				fmt.Fprintln(w, "      preview:")
				writePreview(w, "      ", o.Preview)
				continue
			}
			if drawn := previewform.Render(o.PreviewForm, o.Preview); drawn != nil {
				// A file tool's input, drawn as the pane and the page draw
				// it (the file's text, a diff); --json has it as sent.
				fmt.Fprintf(w, "      choosing it approves all of this (the input drawn as %s, %d %s):\n", formWords(o.PreviewForm), len(drawn), plural(len(drawn), "line", "lines"))
				writePreview(w, "      ", strings.TrimSuffix(previewform.Plain(drawn), "\n"))
			} else {
				fmt.Fprintf(w, "      choosing it approves all of this (%s):\n", lineCount(o.Preview))
				writePreview(w, "      ", o.Preview)
			}
			d := socketproto.PreviewDigest(o.Preview)
			fmt.Fprintf(w, "      digest: %s\n", d)
			if len(p.Questions) == 1 {
				fmt.Fprintf(w, "      to approve it: askuser-client answer %s --digest %s %d\n", p.RequestID, d, j+1)
			} else {
				fmt.Fprintf(w, "      to approve it: askuser-client answer %s --digest %s ANSWER… (%d for question %d)\n", p.RequestID, d, j+1, i+1)
			}
		}
		switch {
		case q.IsMulti():
			fmt.Fprintln(w, "   (several may be chosen)")
		case len(q.Options) > 0 && !q.Input.HasChoices():
			fmt.Fprintln(w, "   (or your own answer, typed)")
		}
	}
}

// writePreview prints a preview whole, each line behind a bar so that where
// it starts and ends is plain, and nothing in it passes for askuser's own
// words.
func writePreview(w io.Writer, indent, preview string) {
	for _, line := range strings.Split(agentText(preview), "\n") {
		fmt.Fprintf(w, "%s│ %s\n", indent, line)
	}
}

// writeIndented prints multi-line text after first, its later lines after
// rest.
func writeIndented(w io.Writer, first, rest, text string) {
	for i, line := range strings.Split(text, "\n") {
		if i == 0 {
			fmt.Fprintf(w, "%s%s\n", first, line)
		} else {
			fmt.Fprintf(w, "%s%s\n", rest, line)
		}
	}
}

// lineCount says how long a preview is: "1 line", "12 lines".
// formWords names a preview's form for a person.
func formWords(form string) string {
	switch form {
	case previewform.Write:
		return "the file it writes"
	case previewform.Edit:
		return "a diff of the edit"
	}
	return "the patch"
}

func lineCount(s string) string {
	n := strings.Count(s, "\n") + 1
	return fmt.Sprintf("%d %s", n, plural(n, "line", "lines"))
}
