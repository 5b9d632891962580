// Package views is the terminal pane of docs/contract.md §6: a tview/tcell
// face of package panecore, which holds every rule of what the pane shows
// and accepts.
//
// The pane keeps no rule of its own. Daemon events go to the core
// (HandleEvent); keys go through the one key table, keytable.go, which maps
// each key, where it applies, to a core action (keys, hint line and the
// README's key table all read it); the core's View comes back and is laid
// out and drawn. What the pane holds besides the core is layout: scroll
// positions per question, and what the last draw found (a page's height,
// the preview's rows on screen). It tells the core the two things only
// drawing knows, in explicit calls: whether a question is on screen at all
// (SetHidden, before drawing) and which lines of an approving preview were
// (PreviewShown, after). Its text input mirrors the core's.
//
// Layout of the package: pane.go holds the pane and its link to the core;
// frame.go is a draw's three steps (lay out, apply, paint: drawing itself
// changes nothing); draw.go and question.go lay out the view, through
// text.go, which wraps clean text and puts it on the screen cell by cell,
// never as tview markup; keytable.go is the key table and keys.go the
// pane's side of the keys (typing into its text input, the editor,
// scrolling); link.go names the daemon connection (panecore.Link,
// reconnecting); app.go runs it all in a tview application; clean.go is
// agent text made safe, by agenttext; demo.go opens the pane on fixtures,
// without a daemon.
//
// It is only a client of the daemon: it imports socketproto and panecore,
// never daemon.
package views
