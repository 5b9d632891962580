package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"askuser/socketproto"
)

func runStatus(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var cf connFlags
	fs := newFlags("status", "status [--json] [flags]\n\nExit 4 when no daemon answers.", stderr)
	cf.Register(fs, false)
	asJSON := fs.Bool("json", false, "print the status as a JSON object")
	pos, code := parseArgs(fs, args, stdout)
	if code != nil {
		return *code
	}
	if len(pos) != 0 {
		return usageError(fs, stderr, "status takes no arguments")
	}
	r, err := cf.Resolve(false, stderr, "askuser-client status")
	if err != nil {
		return failure(stderr, "status", err)
	}
	m, err := callOnce(r, socketproto.StatusRequest{})
	if err != nil {
		return failure(stderr, "status", err)
	}
	st, ok := m.(socketproto.Status)
	if !ok {
		return failure(stderr, "status", fmt.Errorf("askuserd answered status with %s", m.MessageType()))
	}
	if *asJSON {
		if err := writeJSON(stdout, st); err != nil {
			return failure(stderr, "status", err)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 1, ' ', 0)
	fmt.Fprintf(tw, "state:\t%s\n", st.State)
	fmt.Fprintf(tw, "pending:\t%d\n", st.Pending)
	fmt.Fprintf(tw, "panes:\t%d\n", st.Panes)
	fmt.Fprintf(tw, "version:\t%s\n", st.Version)
	fmt.Fprintf(tw, "pid:\t%d\n", st.Pid)
	fmt.Fprintf(tw, "socket:\t%s\n", st.Socket)
	fmt.Fprintf(tw, "state dir:\t%s\n", st.StateDir)
	fmt.Fprintf(tw, "pending file:\t%s\n", st.PendingFile)
	fmt.Fprintf(tw, "uptime:\t%s\n", time.Duration(st.UptimeSeconds)*time.Second)
	tw.Flush()
	return exitOK
}
