package daemon

import (
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"

	"askuser/tests/testdaemon"
)

var waitingHeapProfile = flag.String("waiting-heap-profile", "",
	"BenchmarkWaitingAgents: write a heap profile here while the agents wait (with -test.memprofilerate=1 for every byte)")

// BenchmarkWaitingAgents has 2,000 agents wait at once, each on its own
// connection, in an in-process daemon, and reports what each costs it: heap
// in use, goroutine stack, goroutines. The clients' side of the sockets is in
// the same process and counted too (a net.UnixConn each, no buffer, no
// goroutine). The real binary's RSS per agent at 10,000 is measured by
// `go run ./bench/daemon -only scale`; -waiting-heap-profile shows where the
// heap goes:
//
//	go test -run '^$' -bench WaitingAgents -benchtime 1x -memprofilerate 1 -o daemon.test ./daemon \
//	    -args -waiting-heap-profile heap.out && go tool pprof -top daemon.test heap.out
func BenchmarkWaitingAgents(b *testing.B) {
	const agents = 2000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sock := testDaemon(b, nil)
		heap0, stack0, g0 := memoryNow()
		b.StartTimer()
		conns := make([]*net.UnixConn, agents)
		for a := range conns {
			conns[a] = askAndWait(b, sock, fmt.Sprintf("w%d", a))
		}
		b.StopTimer()
		heap1, stack1, g1 := memoryNow()
		if *waitingHeapProfile != "" {
			writeHeapProfile(b, *waitingHeapProfile)
		}
		b.ReportMetric(float64(heap1-heap0)/agents, "heap-B/agent")
		b.ReportMetric(float64(stack1-stack0)/agents, "stack-B/agent")
		b.ReportMetric(float64(g1-g0)/agents, "goroutines/agent")
		for _, c := range conns {
			c.Close()
		}
	}
}

// askAndWait asks on a new connection and returns it once the request is
// queued; the connection then only waits.
func askAndWait(b *testing.B, sock, id string) *net.UnixConn {
	nc, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		b.Fatal(err)
	}
	line := `{"type":"ask_user_request","requestId":"` + id + `","questions":[{"question":"Question for ` + id +
		`?","options":[{"label":"PostgreSQL (Recommended)","description":"Battle-tested"},{"label":"SQLite"}]}]}` + "\n"
	if _, err := nc.Write([]byte(line)); err != nil {
		b.Fatal(err)
	}
	var buf [512]byte
	for got := 0; ; {
		n, err := nc.Read(buf[got:])
		if err != nil {
			b.Fatalf("%s: reading ask_user_queued: %v", id, err)
		}
		got += n
		if buf[got-1] == '\n' {
			return nc
		}
	}
}

// memoryNow is the heap in use, the goroutine stacks and the number of
// goroutines after a collection.
func memoryNow() (heap, stack uint64, goroutines int) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse, ms.StackInuse, runtime.NumGoroutine()
}

func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAnswerWaitingAgents answers 2,000 waiting agents through one
// connection, as fast as it takes the answers, and reports the time from the
// first answer to the last agent's result. -cpuprofile shows what each
// answer costs the daemon.
func BenchmarkAnswerWaitingAgents(b *testing.B) {
	const agents = 2000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sock := testDaemon(b, nil)
		conns := make([]*net.UnixConn, agents)
		for a := range conns {
			conns[a] = askAndWait(b, sock, fmt.Sprintf("w%d", a))
		}
		answerer := testdaemon.DialRaw(b, sock)
		results := make(chan error, agents)
		for _, c := range conns {
			go func() {
				buf := make([]byte, 4096)
				for got := 0; ; {
					n, err := c.Read(buf[got:])
					if err != nil {
						results <- err
						return
					}
					got += n
					if buf[got-1] == '\n' {
						results <- nil
						return
					}
				}
			}()
		}
		var all strings.Builder
		for a := range agents {
			fmt.Fprintf(&all, `{"type":"answer","requestId":"w%d","answers":["Answer for agent %d"],"via":"cli"}`+"\n", a, a)
		}
		b.StartTimer()
		go answerer.Send(all.String())
		for range agents {
			if err := <-results; err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		for _, c := range conns {
			c.Close()
		}
	}
}
