package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

const rulesSynopsis = `rules [--json] [flags]
rules revoke ID [flags]

Remembered decisions (docs/contract.md §13): each rule answers an agent's
permission prompt as your Allow would, without asking. A rule is made only
when you choose "Allow, and remember: …" on a permission prompt, or write it
into the rules file (its path is printed) yourself. rules lists them: the
rule in words, who made it where and when, how often it has answered and
when last; rules revoke ID removes one, and the next identical prompt is
asked again.`

var rulesCommand = command{
	name:     "rules",
	summary:  "list remembered decisions, or revoke one",
	synopsis: rulesSynopsis,
	daemon:   reachDaemon,
	args:     argCount{0, 2, ""},
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		asJSON := fs.Bool("json", false, "print the rules as a JSON object")
		return func(x *invocation) error {
			switch {
			case len(x.args) == 0:
			case x.args[0] == "revoke" && len(x.args) == 2:
				id, err := strconv.Atoi(x.args[1])
				if err != nil || id <= 0 {
					return usagef("rules revoke: want a rule's id (a number rules lists), got %q", x.args[1])
				}
				c, err := x.client()
				if err != nil {
					return err
				}
				if err := c.RevokeRule(context.Background(), id, socketproto.ViaCLI); err != nil {
					return err
				}
				fmt.Fprintf(x.stdout, "rule %d revoked\n", id)
				return nil
			case x.args[0] == "revoke":
				return usagef("revoke needs the rule's ID (a number rules lists)")
			default:
				return unknownWord("subcommand", x.args[0], []string{"revoke"}, "rules takes no argument, or revoke ID")
			}
			c, err := x.client()
			if err != nil {
				return err
			}
			list, err := c.Rules(context.Background())
			if err != nil {
				return err
			}
			if *asJSON {
				return writeJSON(x.stdout, list)
			}
			printRules(x, list)
			return nil
		}
	},
}

func printRules(x *invocation, list socketproto.Rules) {
	fmt.Fprintf(x.stdout, "rules file: %s (revision %d)\n", list.Path, list.Revision)
	if list.Problem != "" {
		fmt.Fprintf(x.stdout, "problem: %s\n", agenttext.Clean(list.Problem, false))
	}
	if len(list.Rules) == 0 {
		fmt.Fprintln(x.stdout, "no rules")
		return
	}
	for _, r := range list.Rules {
		// A rule's words came from an agent's prompt: cleaned like any
		// agent text.
		fmt.Fprintf(x.stdout, "\n%d  %s\n", r.ID, agenttext.Clean(r.Sentence, false))
		made := "made " + r.Made.Local().Format(time.DateTime) + " " + madeWhere(r.MadeVia)
		if r.MadeFrom != "" {
			made += ", on prompt " + r.MadeFrom
		}
		fmt.Fprintf(x.stdout, "   %s\n", made)
		used := "has not answered yet"
		if r.Answered > 0 {
			used = fmt.Sprintf("answered %d %s", r.Answered, plural(r.Answered, "time", "times"))
			if r.LastAnswered != nil {
				used += ", last " + r.LastAnswered.Local().Format(time.DateTime)
			}
		}
		fmt.Fprintf(x.stdout, "   %s\n", used)
		if r.Expires != nil {
			fmt.Fprintf(x.stdout, "   expires %s\n", r.Expires.Local().Format(time.DateTime))
		}
	}
	fmt.Fprintln(x.stdout, "\nrevoke one: askuser-client rules revoke ID")
}

func madeWhere(via string) string {
	switch via {
	case "hand":
		return "by hand in the rules file"
	case string(socketproto.ViaFile):
		return "by you in the pending file"
	case string(socketproto.ViaCLI):
		return "by you with askuser-client"
	case string(socketproto.ViaWeb):
		return "by you on the web page"
	}
	return "by you in the " + via
}
