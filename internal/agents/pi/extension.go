package pi

import _ "embed"

// extension is the pi extension (askuser.ts): pi's ask_user tool and its
// /questions command, backed by `askuser-client ask - --format pi`. It is
// embedded so that `askuser-client integrate pi` can write it out.
//
//go:embed askuser.ts
var extension []byte
