package acpproxy

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
)

// What the proxy adds to a relayed message: a line goes to an agent that
// says it back (the test binary in "echo" mode), straight ("bare") and
// through Run ("proxy"), one at a time; each round trip crosses the proxy
// twice, once each way. The metrics are the round trip's percentiles;
// the proxy's share of one message is half the difference.
//
//	go test -run '^$' -bench Relay -benchtime 5000x ./cmd/internal/acpproxy/
func BenchmarkRelay(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"0199a7f2-1c1e-7d1a-9d7e-3b1f2c4d5e6f","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` +
		strings.Repeat("The tests pass; next I will look at the handler. ", 5) + `"}}}}` + "\n")
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("ACPPROXY_FAKE_MODE", "echo")
	for _, via := range []string{"bare", "proxy"} {
		b.Run(via, func(b *testing.B) {
			var in io.WriteCloser
			var out *bufio.Reader
			var wait func()
			if via == "bare" {
				cmd := exec.Command(exe, "-test.run=^$")
				w, _ := cmd.StdinPipe()
				r, _ := cmd.StdoutPipe()
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				in, out, wait = w, bufio.NewReader(r), func() { _ = cmd.Wait() }
			} else {
				editorIn, w := io.Pipe()
				r, editorOut := io.Pipe()
				done := make(chan struct{})
				go func() {
					defer close(done)
					_, _ = Run(context.Background(), RunOptions{Argv: []string{exe, "-test.run=^$"}, Stdin: editorIn, Stdout: editorOut,
						Stderr: io.Discard, Ask: (&asked{position: 1}).ask, Limits: socketproto.DefaultLimits()})
					editorOut.Close()
				}()
				in, out, wait = w, bufio.NewReader(r), func() { <-done }
			}
			rtt := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				if _, err := in.Write(line); err != nil {
					b.Fatal(err)
				}
				if _, err := out.ReadBytes('\n'); err != nil {
					b.Fatal(err)
				}
				rtt = append(rtt, time.Since(t0))
			}
			b.StopTimer()
			in.Close()
			wait()
			slices.Sort(rtt)
			b.ReportMetric(float64(rtt[len(rtt)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(rtt[len(rtt)*99/100].Microseconds()), "p99-µs")
		})
	}
}
