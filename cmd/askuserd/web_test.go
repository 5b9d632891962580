package main

import "testing"

// The line `askuserd web` prints once serving names the --url command
// that prints this page's address: a page served on another port than the
// default is not found by a bare `askuserd web --url`.
func TestURLCommand(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		o    webOptions
		want string
	}{
		{webOptions{}, "askuserd web --url"},
		{webOptions{listen: "127.0.0.1:17341"}, "askuserd web --url --listen 127.0.0.1:17341"},
		{webOptions{configPath: "/home/me/my config.toml", listen: "0.0.0.0:7341", tlsCert: "cert.pem", tlsKey: "key.pem", hosts: hostList{"box.lan"}},
			"askuserd web --url --config '/home/me/my config.toml' --listen 0.0.0.0:7341 --tls-cert cert.pem --host box.lan"},
		{webOptions{publicURL: "https://box.tailnet.ts.net/"}, "askuserd web --url --public-url https://box.tailnet.ts.net/"},
	} {
		if got := urlCommand(c.o); got != c.want {
			t.Errorf("urlCommand(%+v) = %q, want %q", c.o, got, c.want)
		}
	}
}
