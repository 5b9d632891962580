package views

import "askuser/views/panecore"

// Link is the pane's connection to the daemon (panecore.Link): every face
// of the core, the web page's included, connects the same way.
type Link = panecore.Link
