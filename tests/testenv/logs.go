package testenv

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"askuser/internal/statefile"
	"askuser/tests/testdaemon"
)

// No capability in a log (docs/contract.md §4 "Logs hold no capability"):
// an Env that runs `askuserd web` has every log line its processes wrote —
// the daemon's output, each web server's stderr, askuserd.log in the state
// dir — checked when the test ends for the web secret (a link with it
// holds it too), any session token, the VAPID private key, and the push
// endpoints' paths and keys; one found fails the test.

// logWatch is what an Env's logs are checked for.
type logWatch struct {
	mu      sync.Mutex
	on      bool                    // a web server ran: the logs are checked
	logs    []*testdaemon.LogBuffer // the web servers' stderr
	secrets []string                // strings no log may hold
	checks  []func(logs string)     // more checks, on every log line together
}

// sessionToken is the shape of a session token (views/web/secret.go): a
// random id and its MAC, both base64url. Tokens no test saw (a browser's)
// are found by it.
var sessionToken = regexp.MustCompile(`[A-Za-z0-9_-]{24}\.[A-Za-z0-9_-]{43}`)

// WatchLogs has this Env's logs checked, and the web server's stderr log
// with them.
func (e *Env) WatchLogs(log *testdaemon.LogBuffer) {
	e.logs.mu.Lock()
	defer e.logs.mu.Unlock()
	e.logs.on = true
	if log != nil {
		e.logs.logs = append(e.logs.logs, log)
	}
}

// Secret adds strings no log of this Env may hold.
func (e *Env) Secret(s ...string) {
	e.logs.mu.Lock()
	defer e.logs.mu.Unlock()
	for _, v := range s {
		if v != "" {
			e.logs.secrets = append(e.logs.secrets, v)
		}
	}
}

// SessionSeen notes a session token a test was given: no log may hold
// it, and it must have the shape sessionToken finds.
func (e *Env) SessionSeen(tok string) {
	if !sessionToken.MatchString(tok) {
		e.T.Errorf("session token %q does not have the shape the log check looks for (%s)", tok, sessionToken)
	}
	e.Secret(tok)
}

// CheckLogsToo adds a check on all of this Env's log lines together, run
// with the others when the test ends.
func (e *Env) CheckLogsToo(check func(logs string)) {
	e.logs.mu.Lock()
	defer e.logs.mu.Unlock()
	e.logs.checks = append(e.logs.checks, check)
}

// checkLogs is run when the test ends, after every process of the Env
// stopped.
func (e *Env) checkLogs() {
	e.logs.mu.Lock()
	defer e.logs.mu.Unlock()
	if !e.logs.on {
		return
	}
	t := e.T
	secrets := append([]string(nil), e.logs.secrets...)
	dir := filepath.Join(e.State, "askuser")
	// Read as the programs read them: a FIFO put there by a test is left
	// alone, never waited on.
	if b, err := statefile.ReadFile(filepath.Join(dir, "web-secret")); err == nil {
		secrets = append(secrets, strings.TrimSpace(string(b)))
	}
	if b, err := statefile.ReadFile(filepath.Join(dir, "push-vapid.json")); err == nil {
		var k struct {
			Private string `json:"privateKey"`
		}
		_ = json.Unmarshal(b, &k)
		secrets = append(secrets, k.Private)
	}
	if b, err := statefile.ReadFile(filepath.Join(dir, "push-subscriptions.json")); err == nil {
		var subs []struct {
			Endpoint string            `json:"endpoint"`
			Keys     map[string]string `json:"keys"`
		}
		_ = json.Unmarshal(b, &subs)
		for _, s := range subs {
			if u, err := url.Parse(s.Endpoint); err == nil {
				secrets = append(secrets, u.Path, u.EscapedPath())
			}
			for _, k := range s.Keys {
				secrets = append(secrets, k)
			}
		}
	}

	slices.Sort(secrets)
	secrets = slices.Compact(secrets)

	named := map[string]string{"askuserd's output": e.DaemonLog()}
	for i, l := range e.logs.logs {
		named[fmt.Sprintf("askuserd web's stderr (#%d)", i+1)] = l.String()
	}
	if b, err := statefile.ReadFile(filepath.Join(dir, "askuserd.log")); err == nil {
		named["askuserd.log"] = string(b)
	}
	var all strings.Builder
	for name, log := range named {
		all.WriteString(log)
		for _, s := range secrets {
			if len(s) >= 8 && strings.Contains(log, s) {
				t.Errorf("%s holds %q, a capability:\n%s", name, s, log)
			}
		}
		if tok := sessionToken.FindString(log); tok != "" {
			t.Errorf("%s holds %q, a session token:\n%s", name, tok, log)
		}
	}
	for _, check := range e.logs.checks {
		check(all.String())
	}
}
