package views

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"askuser/socketproto"
)

// benchApp runs a pane on a w×h simulation screen and reports each draw:
// the focused request and whether want (if set) is on the drawn screen.
type benchApp struct {
	a     *App
	scr   tcell.SimulationScreen
	drawn chan string
	want  string
	done  chan error
}

func newBenchApp(b *testing.B, w, h int) *benchApp {
	scr := tcell.NewSimulationScreen("UTF-8")
	ba := &benchApp{scr: scr, drawn: make(chan string, 16), done: make(chan error, 1)}
	ba.a = NewApp(&fakeDaemon{}, Options{Socket: "/x.sock"}, scr)
	scr.SetSize(w, h)
	ba.a.TV.SetAfterDrawFunc(func(screen tcell.Screen) {
		if ba.want != "" && !screenHas(screen, ba.want) {
			return
		}
		select {
		case ba.drawn <- ba.a.Pane.focusID():
		default:
		}
	})
	go func() { ba.done <- ba.a.Run() }()
	b.Cleanup(func() { ba.a.Quit(); <-ba.done })
	return ba
}

// screenHas scans the drawn (back) buffer row by row for s.
func screenHas(screen tcell.Screen, s string) bool {
	w, h := screen.Size()
	var row strings.Builder
	for y := 0; y < h; y++ {
		row.Reset()
		for x := 0; x < w; x++ {
			str, _, _ := screen.Get(x, y)
			row.WriteString(str)
		}
		if strings.Contains(row.String(), s) {
			return true
		}
	}
	return false
}

func (ba *benchApp) waitDrawn(b *testing.B) string {
	select {
	case id := <-ba.drawn:
		return id
	case <-time.After(10 * time.Second):
		b.Fatal("no draw within 10s")
		return ""
	}
}

func percentile(ds []time.Duration, p float64) time.Duration {
	sorted := append([]time.Duration(nil), ds...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p))]
}

// BenchmarkRequestAddedToScreen: from request_added reaching the pane (its
// Deliver) to the question's text being on the drawn screen.
//
//	go test -run '^$' -bench RequestAddedToScreen -benchtime 1000x ./views
func BenchmarkRequestAddedToScreen(b *testing.B) {
	ba := newBenchApp(b, 100, 30)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		text := fmt.Sprintf("Question number %d?", i)
		id := fmt.Sprintf("req-%d", i)
		ba.a.TV.QueueUpdate(func() { ba.want = text })
		start := time.Now()
		ba.a.Deliver(socketproto.RequestAdded{Request: pending(id, question(text, "Bench", "Yes=go on", "No=stop"))})
		ba.waitDrawn(b)
		lat = append(lat, time.Since(start))
		ba.a.TV.QueueUpdate(func() { ba.want = "No questions waiting" })
		ba.a.Deliver(socketproto.RequestResolved{RequestID: id, Outcome: "answered", Via: "cli"})
		ba.waitDrawn(b)
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 0.50).Microseconds()), "p50-µs")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs")
}

// BenchmarkSwitchAmong500: one `]` (or `[`) keypress, handled and drawn,
// with 500 requests waiting.
//
//	go test -run '^$' -bench SwitchAmong500 ./views
func BenchmarkSwitchAmong500(b *testing.B) {
	ba := newBenchApp(b, 100, 30)
	var ps []socketproto.Pending
	for i := 0; i < 500; i++ {
		ps = append(ps, pending(fmt.Sprintf("req-%03d", i), dbQuestion(), nameQuestion(), frameworkQuestion(12)))
	}
	ba.a.Deliver(socketproto.Snapshot{State: socketproto.StateWaiting, Pending: ps})
	for ba.waitDrawn(b) == "" {
	}
	key := ']'
	pos := 0
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if pos == 499 {
			key = '['
		} else if pos == 0 {
			key = ']'
		}
		if key == ']' {
			pos++
		} else {
			pos--
		}
		want := fmt.Sprintf("req-%03d", pos)
		start := time.Now()
		ba.scr.InjectKey(tcell.KeyRune, key, tcell.ModNone)
		for ba.waitDrawn(b) != want {
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(lat, 0.50).Microseconds()), "p50-µs")
	b.ReportMetric(float64(percentile(lat, 0.99).Microseconds()), "p99-µs")
}
