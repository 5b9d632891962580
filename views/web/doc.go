// Package web is the web pane of docs/contract.md §12: a page, served by
// `askuserd web`, that shows the questions waiting in askuserd and takes the
// user's answers, for a browser on this machine or a phone elsewhere.
//
// It is a face of the pane's core (views/panecore, docs/contract.md §6), as
// the terminal pane is: each browser session (one session token) gets a
// core of its own, with its own daemon connection (panecore.Link, which
// reconnects and restarts a crashed daemon). The page draws the core's view
// and sends back the user's actions; every rule — the guard, drafts, what
// is typed and what accepted, Allow means seen — is the core's. It imports
// views/panecore and socketproto, never the terminal pane (views) nor daemon.
//
// Layout: server.go starts and stops it; checks.go is what every request
// must pass (docs/contract.md §12: its Host, its session, a change's
// Origin, the headers of every response); api.go is the page's side (the
// page, the login, the event stream of views, the actions); sessions.go
// runs one core per session on one goroutine; push.go makes the page an app
// that notifies (its service worker, Web Push subscriptions relayed to the
// daemon, a notification's action taken through the session's core); view.go cleans the view's
// agent text for the page; secret.go holds the secret and the session
// tokens made from it; static/ is the page itself, embedded: plain HTML, CSS
// and JavaScript, no build step (session.js keeps the session token in the
// origin's storage and presents it; app.js draws the view; push.js
// registers sw.js and subscribes; manifest.json and the icons make it
// installable).
package web
