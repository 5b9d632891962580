package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"
)

var statusCommand = command{
	name:     "status",
	summary:  "show the daemon's state",
	synopsis: "status [--json] [flags]\n\nExit 4 when no daemon answers.",
	daemon:   reachDaemon,
	args:     noArgs,
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		asJSON := fs.Bool("json", false, "print the status as a JSON object")
		return func(x *invocation) error {
			c, err := x.client()
			if err != nil {
				return err
			}
			st, err := c.Status(context.Background())
			if err != nil {
				return err
			}
			if *asJSON {
				return writeJSON(x.stdout, st)
			}
			tw := tabwriter.NewWriter(x.stdout, 0, 4, 1, ' ', 0)
			fmt.Fprintf(tw, "state:\t%s\n", st.State)
			fmt.Fprintf(tw, "pending:\t%d\n", st.Pending)
			fmt.Fprintf(tw, "panes:\t%d\n", st.Panes)
			fmt.Fprintf(tw, "version:\t%s\n", st.Version)
			fmt.Fprintf(tw, "pid:\t%d\n", st.Pid)
			fmt.Fprintf(tw, "socket:\t%s\n", st.Socket)
			fmt.Fprintf(tw, "state dir:\t%s\n", st.StateDir)
			fmt.Fprintf(tw, "pending file:\t%s\n", st.PendingFile)
			fmt.Fprintf(tw, "uptime:\t%s\n", time.Duration(st.UptimeSeconds)*time.Second)
			if st.StateDirError != "" {
				fmt.Fprintf(tw, "state dir problem:\t%s\n", flatText(st.StateDirError))
			}
			if st.PendingFileError != "" {
				fmt.Fprintf(tw, "pending file problem:\t%s\n", flatText(st.PendingFileError))
			}
			for _, fe := range st.FileErrors {
				fmt.Fprintf(tw, "file problem:\t%s: %s\n", flatText(fe.Path), flatText(fe.Error))
			}
			if st.ConfigError != "" {
				fmt.Fprintf(tw, "config refused:\t%s (the daemon keeps its last good config)\n", flatText(st.ConfigError))
			}
			if len(st.ConfigRestart) > 0 {
				fmt.Fprintf(tw, "config, at the next start:\t%s (askuserd stop, then askuserd)\n", flatText(strings.Join(st.ConfigRestart, ", ")))
			}
			return tw.Flush()
		}
	},
}
