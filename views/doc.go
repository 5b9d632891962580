// Package views is the pane of docs/contract.md §6: a tview/tcell terminal UI that shows
// the questions waiting in askuserd and sends the user's answers back.
//
// The pane is only a client of the daemon: it learns everything from socket
// events (snapshot, request_added, request_updated, request_resolved …) and
// acts only by sending answer, cancel and draft messages. Every answer the
// user gives goes to the daemon as a draft at once, so the pane holds no
// state the daemon does not have, apart from text being typed, and it must
// not know the daemon's insides: it imports socketproto, never daemon.
//
// Layout of the package: model.go holds the requests and each question's
// in-progress answer (no tview); pane.go applies daemon events and user
// actions to it; draw.go and question.go render it, through text.go, which
// wraps clean text and puts it on the screen cell by cell, never as tview
// markup; keytable.go is the one table of key bindings (keys, where they
// apply, help text, action) that drives the keys, the hint line and the
// README's key table; keys.go holds the actions; link.go is the daemon
// connection (reconnecting); app.go runs it all in a tview application;
// sanitize.go makes agent text safe to show; demo.go opens the pane on
// fixtures, without a daemon.
package views
