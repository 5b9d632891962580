// Command minimal is the baseline of bench/clientlatency: the smallest Go
// client that does what an askuser-client subcommand does on the wire —
// dial the socket, send one request, read until its answer, print, exit —
// with nothing else linked in but the protocol package. What askuser-client
// takes beyond this binary is the price of everything else it carries.
//
//	minimal status SOCKET   send status, print the reply
//	minimal list SOCKET     send list, print the reply
//	minimal ask SOCKET      ask one yes/no question, print the result
//	minimal noop            start and exit: the floor of a small Go process
package main

import (
	"fmt"
	"os"

	"askuser/socketproto"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: minimal status|list|ask SOCKET | minimal noop")
		os.Exit(2)
	}
	if os.Args[1] == "noop" {
		return
	}
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: minimal status|list|ask SOCKET")
		os.Exit(2)
	}
	var req socketproto.Message
	switch os.Args[1] {
	case "status":
		req = socketproto.StatusRequest{}
	case "list":
		req = socketproto.ListRequest{}
	case "ask":
		req = socketproto.AskUserRequest{Request: socketproto.Request{Questions: []socketproto.Question{
			{Question: "Proceed?", Options: []socketproto.Option{{Label: "Yes"}, {Label: "No"}}}}}}
	default:
		fmt.Fprintf(os.Stderr, "minimal: unknown mode %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := roundTrip(os.Args[2], req); err != nil {
		fmt.Fprintln(os.Stderr, "minimal:", err)
		os.Exit(1)
	}
}

// roundTrip sends req and reads until its answer: for an ask the result (the
// daemon sends a queued notice first), for anything else the one reply.
func roundTrip(sock string, req socketproto.Message) error {
	c, err := socketproto.Dial(sock, 0)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Send(req); err != nil {
		return err
	}
	for {
		m, err := c.Recv()
		if err != nil {
			return err
		}
		if e, ok := m.(*socketproto.Error); ok {
			return e
		}
		if _, queued := m.(socketproto.Queued); queued {
			continue
		}
		b, err := socketproto.Encode(m)
		if err != nil {
			return err
		}
		_, err = os.Stdout.Write(b)
		return err
	}
}
