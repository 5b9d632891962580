// Package web is the web pane of docs/contract.md §12: a page, served by `askuserd web`,
// that shows the questions waiting in askuserd and sends the user's answers
// back, for a browser on this machine or a phone elsewhere.
//
// Like the terminal pane (package views) it is only a client of the daemon:
// one subscription as a pane carries the daemon's events (views.Link, which
// reconnects and restarts a crashed daemon), and every change the user makes
// is an answer, cancel or draft message sent with the typed client
// (askclient.Client). It imports socketproto and views, never daemon.
//
// Layout: hub.go keeps the daemon's view of the queue and fans its events
// out to every open page over Server-Sent Events; page.go turns requests
// into what the page shows (agent text cleaned as the terminal pane cleans
// it) and the page's answers into the wire forms; secret.go holds the secret
// and the session tokens made from it; server.go is the HTTP side (the
// checks of docs/contract.md §12 on every request); static/ is the page itself,
// embedded: plain HTML, CSS and JavaScript, no build step (session.js
// keeps the session token in the origin's storage and presents it).
package web
