// Package panecore is what every surface of askuser shows and accepts
// (docs/contract.md §6): the terminal pane (package views) and the web page
// (views/web) are faces of it. Daemon events (socketproto messages) and user
// actions go in; a View comes out, a plain value with JSON tags that a face
// lays out and draws, and outbound answer, cancel and draft messages go
// through a Sender.
//
// It owns every rule of §6 that is not drawing: the requests and their
// questions, each question's answer in progress, drafts (accepted answers at
// once, text being typed a second after the typing stops, every draft from
// elsewhere winning), the input guard and view revisions (no answer the user
// has not seen), Allow means seen, typed answers checked as typed, notices,
// the dialogs, declining and submitting — and what a face may offer now and
// why not (View.Actions), the ages and counts as words: a face works none
// of them out.
//
// Layout of the package: core.go is the API (Core, Options, Sender),
// action.go the actions and view.go the View; model.go holds the requests
// and each question's answer in progress, and the draft forms; state.go
// is the core's state, in owned parts (the open input, the discard dialog,
// the bell; the notices, the Rules view and the drafts in flight live
// beside their rules), and applies daemon events; actions.go and answer.go apply the user's actions;
// guard.go is revisions and settling; typing.go is drafts on their way;
// approval.go is Allow means seen; available.go is the actions a face
// offers and why not; notices.go the notices; rules.go the
// line about a prompt a rule answered and the Rules view (docs/contract.md
// §13); next.go is the one button of a face without keys; link.go is a
// face's connection to the daemon (reconnecting); viewstate.go builds the
// View. The core's words name no keys (each face shows its own); agent text
// in them (a notice naming a question) is cleaned by socketproto/agenttext,
// the one sanitiser.
//
// It must not know any UI: it imports socketproto and its sub-packages only,
// never tview, tcell or views. Time comes from an injected clock, so the
// scenario files in testdata run without a terminal or a wall clock.
package panecore
