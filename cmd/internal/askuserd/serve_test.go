package askuserd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"testing"

	"askuser/daemon"
	"askuser/socketproto"
)

// The start-status pipe says already_running only when another daemon on
// this very socket will answer the starter's clients; a state dir held by a
// daemon on another socket is a refusal (docs/contract.md §2), which the
// starter reports at once instead of polling a socket nobody will serve.
func TestStartStatusCodes(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"socket held", fmt.Errorf("%w (pid 7) on /run/s.sock", daemon.ErrAlreadyRunning), socketproto.StartAlreadyRunning},
		{"state dir held", fmt.Errorf("x: %w", errors.Join(daemon.ErrAlreadyRunning, daemon.ErrStateDirInUse)), socketproto.StartRefused},
		{"broken config", errors.New("config.toml line 3: expected '='"), socketproto.StartRefused},
	} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		(&startStatus{f: w}).refused(c.err)
		line, _ := io.ReadAll(r)
		r.Close()
		var st socketproto.StartStatus
		if err := json.Unmarshal(line, &st); err != nil {
			t.Fatalf("%s: %q: %v", c.name, line, err)
		}
		if st.Ready || st.Code != c.want || st.Message == "" {
			t.Errorf("%s: wrote %q, want code %q", c.name, line, c.want)
		}
	}
}
