// Package crashloop proves docs/contract.md §10's promise by breaking it: it runs the
// real askuserd under mixed load (waiting and parked asks; answers and
// cancels over the socket, through askuser-client and through the pending
// file; drafts over the socket), SIGKILLs it at random moments — some right
// after a save of the pending file, before the daemon could rewrite it, some
// right after a draft's acknowledgement that follows such a save — starts it
// again on the same state dir, and finally checks every acknowledgement it
// received against what the daemon holds: an acknowledged ask is pending or
// resolved, an acknowledged answer or cancel is the request's one
// resolution, nothing is resolved twice, history.jsonl has each resolved
// request exactly once, and no request is resolved with an answer nobody
// gave it (a draft, or a value no save edited into it).
//
// The file answerer edits the file the way people do: mostly the copy it
// just read, sometimes a copy a few revisions old (an editor buffer loaded
// earlier); saved by write-to-temp and rename, or in place (truncate and
// write, as vim with backupcopy=yes does).
//
// The end-to-end test runs it briefly; bench/crashloop runs it as a soak.
package crashloop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure Run.
type Options struct {
	Askuserd, Client string // the binaries
	Root             string // an empty directory; short (the socket path is limited)
	Kills            int
	Seed             uint64
	Sync             string // daemon.sync: "batch" or "always"
	// Load is how long each round runs before its SIGKILL, at most (the
	// moment is random below it).
	Load time.Duration
	// Logf reports progress; may be nil.
	Logf func(format string, args ...any)
	// Trace, when set, receives the daemon's log at info level and a line
	// for each start, save of the pending file and kill: to read back how
	// a problem came about. It may be nil.
	Trace io.Writer
}

// Report counts what the run checked and what it found wrong.
type Report struct {
	Kills int
	// SaveKills and DraftKills count the kills that came right after a save
	// of the pending file, and right after a draft's ok that followed one.
	SaveKills, DraftKills                 int
	AsksAcked, AnswersAcked, CancelsAcked int
	DraftsAcked                           int
	// FileSaves counts saves of the pending file; StaleSaves those of a
	// copy older than the newest one read, InPlaceSaves those written by
	// truncate and write rather than by rename.
	FileSaves, StaleSaves, InPlaceSaves int
	Resolved                            int // requests resolved by the end
	Lost                                int // acknowledged, then missing or resolved otherwise
	Duplicated                          int // resolved twice, or twice in history
	// NotGiven counts requests resolved with an answer that no surface
	// submitted for them: a draft's value, a value no save edited into
	// them, or a cancel nobody sent.
	NotGiven int
	Problems []string
}

func (r Report) String() string {
	return fmt.Sprintf("kills %d (%d right after a save, %d after a draft); acks checked: %d asks, %d answers, %d cancels, %d drafts; "+
		"pending-file saves %d (%d stale, %d in place); resolved %d; lost %d; duplicated %d; not given %d",
		r.Kills, r.SaveKills, r.DraftKills, r.AsksAcked, r.AnswersAcked, r.CancelsAcked, r.DraftsAcked,
		r.FileSaves, r.StaleSaves, r.InPlaceSaves, r.Resolved, r.Lost, r.Duplicated, r.NotGiven)
}

// outcome is what an acknowledged answer or cancel promised.
type outcome struct {
	cancelled bool
	answer    string
}

type run struct {
	opts   Options
	env    []string
	socket string
	state  string
	rng    *rand.Rand

	file  *fileEditor
	trace *tracer

	mu       sync.Mutex
	asked    map[string]bool    // acknowledged asks
	open     []string           // asked and, as far as we know, not resolved
	promised map[string]outcome // acknowledged answers and cancels
	// given is every answer some surface submitted for a request, acked
	// or not (a kill may come between the write and the ok), as
	// "via=value": a save's edit relative to the copy it came from, an
	// answer sent over the socket or by askuser-client.
	given      map[string]map[string]bool
	cancelSent map[string]bool
	rep        Report
	nextID     int
	nextDraft  int
}

// Run does the whole loop and the final check.
func Run(ctx context.Context, opts Options) (Report, error) {
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.Sync == "" {
		opts.Sync = "batch"
	}
	if opts.Load <= 0 {
		opts.Load = 150 * time.Millisecond
	}
	r := &run{opts: opts, rng: rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b9)),
		asked: map[string]bool{}, promised: map[string]outcome{},
		given: map[string]map[string]bool{}, cancelSent: map[string]bool{}}
	runtime, state, config := filepath.Join(opts.Root, "run"), filepath.Join(opts.Root, "state"), filepath.Join(opts.Root, "config")
	for _, d := range []string{runtime, state, filepath.Join(config, "askuser")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return r.rep, err
		}
	}
	cfg := fmt.Sprintf("[daemon]\nsync = %q\n", opts.Sync)
	if err := os.WriteFile(filepath.Join(config, "askuser", "config.toml"), []byte(cfg), 0o600); err != nil {
		return r.rep, err
	}
	r.socket = filepath.Join(runtime, "askuser", "askuserd.sock")
	r.state = filepath.Join(state, "askuser")
	r.trace = &tracer{w: opts.Trace}
	r.file = newFileEditor(filepath.Join(r.state, "pending-questions.json"), r.gave, r.trace)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "ASKUSER_") {
			r.env = append(r.env, kv)
		}
	}
	r.env = append(r.env, "XDG_RUNTIME_DIR="+runtime, "XDG_STATE_HOME="+state, "XDG_CONFIG_HOME="+config)

	for i := 0; i < opts.Kills && ctx.Err() == nil; i++ {
		if err := r.round(ctx); err != nil {
			return r.rep, fmt.Errorf("round %d: %w", i+1, err)
		}
		r.rep.Kills++
		if (i+1)%50 == 0 {
			opts.Logf("%d kills: %s", i+1, r.rep)
		}
	}
	err := r.check(ctx)
	return r.rep, err
}

// start runs askuserd serve and waits for its socket.
func (r *run) start() (*exec.Cmd, error) {
	level := "error"
	if r.trace.w != nil {
		level = "info"
	}
	cmd := exec.Command(r.opts.Askuserd, "serve", "--log-level", level)
	cmd.Env = r.env
	var out strings.Builder
	// One writer for both, so that exec copies into it from one goroutine.
	w := io.MultiWriter(&out, r.trace)
	cmd.Stdout, cmd.Stderr = w, w
	r.trace.printf("start, after %d kills", r.rep.Kills)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if c, err := net.Dial("unix", r.socket); err == nil {
			c.Close()
			return cmd, nil
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return nil, fmt.Errorf("askuserd did not start: %s", out.String())
}

// round starts the daemon, loads it from several goroutines and kills it
// with SIGKILL at a random moment: in some rounds right after a save of the
// pending file (before the daemon could take it in or rewrite the file), in
// some right after a draft acknowledged after such a save.
func (r *run) round(ctx context.Context) error {
	cmd, err := r.start()
	if err != nil {
		return err
	}
	load, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for w, work := range []func(context.Context, *rand.Rand){r.asker, r.asker, r.answerer, r.canceller, r.cliAnswerer, r.fileAnswerer, r.drafter} {
		wg.Add(1)
		seed := r.rng.Uint64()
		go func() {
			defer wg.Done()
			work(load, rand.New(rand.NewPCG(seed, uint64(w))))
		}()
	}
	end := r.rng.IntN(10) // 0-1: save then kill; 2-3: save, draft, kill; else a plain kill
	var drafts *line
	if end < 4 {
		drafts, _ = r.dial(load) // before the wait: dialling takes time the kill must not wait for
	}
	time.Sleep(time.Duration(r.rng.Int64N(int64(r.opts.Load))) + time.Millisecond)
	switch {
	case end < 2:
		if r.file.save(r.rng) {
			r.count(func(rep *Report) { rep.SaveKills++ })
		}
	case end < 4 && drafts != nil:
		id, saved := r.file.saveFor(r.rng)
		if saved && r.draftAfterSave(drafts, id) {
			r.count(func(rep *Report) { rep.DraftKills++ })
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	r.trace.printf("kill")
	_ = cmd.Wait()
	stop()
	wg.Wait()
	r.count(func(rep *Report) { rep.FileSaves, rep.StaleSaves, rep.InPlaceSaves = r.file.counts() })
	return nil
}

// draftAfterSave sends a draft for the request the save edited (half of
// the time) or for another open one, and reports whether it was
// acknowledged: the kill follows at once.
func (r *run) draftAfterSave(l *line, savedID string) bool {
	id := savedID
	if id == "" || r.rng.IntN(2) == 0 {
		if other := r.peek(r.rng); other != "" {
			id = other
		}
	}
	if id == "" {
		return false
	}
	acked, _ := r.sendDraft(l, id)
	return acked
}

func (r *run) count(f func(*Report)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.rep)
}

// line is one connection speaking raw JSON lines.
type line struct {
	c  net.Conn
	sc *bufio.Scanner
}

func (r *run) dial(ctx context.Context) (*line, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", r.socket)
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, func() { c.Close() })
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	return &line{c: c, sc: sc}, nil
}

func (l *line) call(req string) (map[string]any, error) {
	if _, err := l.c.Write([]byte(req + "\n")); err != nil {
		return nil, err
	}
	return l.recv()
}

// callFor sends req and returns the first reply about request id that is
// not its response: earlier asks on the connection may be answered meanwhile.
func (l *line) callFor(id, req string) (map[string]any, error) {
	if _, err := l.c.Write([]byte(req + "\n")); err != nil {
		return nil, err
	}
	for {
		m, err := l.recv()
		if err != nil || (m["requestId"] == id && m["type"] != "ask_user_response") {
			return m, err
		}
	}
}

func (l *line) recv() (map[string]any, error) {
	if !l.sc.Scan() {
		if l.sc.Err() != nil {
			return nil, l.sc.Err()
		}
		return nil, errors.New("connection closed")
	}
	var m map[string]any
	err := json.Unmarshal(l.sc.Bytes(), &m)
	return m, err
}

func (r *run) newID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextID++
	return fmt.Sprintf("cl-%d-%d", r.opts.Seed, r.nextID)
}

var options = []string{"PostgreSQL", "SQLite", "MongoDB"}

func askLine(id string, wait bool) string {
	return fmt.Sprintf(`{"type":"ask_user_request","requestId":%q,"wait":%t,"agent":{"id":%q},"questions":[{"question":"Which database for %s?","options":[{"label":"PostgreSQL"},{"label":"SQLite"},{"label":"MongoDB"}]}]}`,
		id, wait, "agent-"+id, id)
}

// asker asks, half of the time parked, half waiting on its connection.
func (r *run) asker(ctx context.Context, rng *rand.Rand) {
	for ctx.Err() == nil {
		l, err := r.dial(ctx)
		if err != nil {
			return
		}
		for k := 0; k < 5 && ctx.Err() == nil; k++ {
			id := r.newID()
			m, err := l.callFor(id, askLine(id, rng.IntN(2) == 0))
			if err != nil {
				break
			}
			if m["type"] == "ask_user_queued" {
				r.mu.Lock()
				r.asked[id] = true
				r.rep.AsksAcked++
				r.open = append(r.open, id)
				r.mu.Unlock()
			}
		}
		// Waiting asks stay open on this connection until the kill.
		if rng.IntN(3) == 0 {
			l.c.Close()
		}
	}
}

// peek chooses an open request, leaving it open.
func (r *run) peek(rng *rand.Rand) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.open) == 0 {
		return ""
	}
	return r.open[rng.IntN(len(r.open))]
}

// gave records that a surface submitted value for request id.
func (r *run) gave(id, via, value string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.given[id] == nil {
		r.given[id] = map[string]bool{}
	}
	r.given[id][via+"="+value] = true
}

// pick takes an open request to resolve.
func (r *run) pick(rng *rand.Rand) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.open) == 0 {
		return ""
	}
	i := rng.IntN(len(r.open))
	id := r.open[i]
	r.open[i] = r.open[len(r.open)-1]
	r.open = r.open[:len(r.open)-1]
	return id
}

func (r *run) promise(id string, o outcome, cancel bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.promised[id]; ok && prev != o {
		r.rep.Duplicated++
		r.rep.Problems = append(r.rep.Problems, fmt.Sprintf("%s: acknowledged twice, as %+v and as %+v", id, prev, o))
	}
	r.promised[id] = o
	if cancel {
		r.rep.CancelsAcked++
	} else {
		r.rep.AnswersAcked++
	}
}

// answerer answers open requests over the socket, as a pane does.
func (r *run) answerer(ctx context.Context, rng *rand.Rand) {
	r.resolveLoop(ctx, rng, func(l *line, id string) {
		a := options[rng.IntN(len(options))]
		r.gave(id, "pane", a)
		m, err := l.call(fmt.Sprintf(`{"type":"answer","requestId":%q,"answers":[%q],"via":"pane"}`, id, a))
		if err == nil && m["type"] == "ok" {
			r.promise(id, outcome{answer: a}, false)
		}
	})
}

// canceller declines open requests over the socket, as the CLI does.
func (r *run) canceller(ctx context.Context, rng *rand.Rand) {
	r.resolveLoop(ctx, rng, func(l *line, id string) {
		r.mu.Lock()
		r.cancelSent[id] = true
		r.mu.Unlock()
		m, err := l.call(fmt.Sprintf(`{"type":"cancel","requestId":%q,"via":"cli"}`, id))
		if err == nil && m["type"] == "ok" {
			r.promise(id, outcome{cancelled: true}, true)
		}
	})
}

func (r *run) resolveLoop(ctx context.Context, rng *rand.Rand, resolve func(*line, string)) {
	l, err := r.dial(ctx)
	if err != nil {
		return
	}
	for ctx.Err() == nil {
		id := r.pick(rng)
		if id == "" {
			time.Sleep(time.Millisecond)
			continue
		}
		resolve(l, id)
	}
}

// cliAnswerer answers with the real askuser-client; exit 0 is its ack.
func (r *run) cliAnswerer(ctx context.Context, rng *rand.Rand) {
	for ctx.Err() == nil {
		id := r.pick(rng)
		if id == "" {
			time.Sleep(2 * time.Millisecond)
			continue
		}
		n := 1 + rng.IntN(len(options))
		r.gave(id, "cli", options[n-1])
		cmd := exec.CommandContext(ctx, r.opts.Client, "answer", "--no-autostart", id, fmt.Sprint(n))
		cmd.Env = r.env
		if cmd.Run() == nil {
			r.promise(id, outcome{answer: options[n-1]}, false)
		}
	}
}

// fileAnswerer reads the pending file now and then and saves a copy of it
// with one answer filled in (see fileEditor). A save has no
// acknowledgement; the check demands that whatever the file resolved is a
// value some save edited into that request.
func (r *run) fileAnswerer(ctx context.Context, rng *rand.Rand) {
	for ctx.Err() == nil {
		time.Sleep(time.Duration(5+rng.IntN(20)) * time.Millisecond)
		r.file.look()
		if rng.IntN(2) == 0 {
			r.file.save(rng)
		}
	}
}

// drafter gives draft answers over the socket, as a pane does while the
// user chooses, so that the file and the copies of it hold drafts. A draft's
// value ("draft-N") is never an answer anybody submits: a request resolved
// with one was resolved with what nobody gave.
func (r *run) drafter(ctx context.Context, rng *rand.Rand) {
	l, err := r.dial(ctx)
	if err != nil {
		return
	}
	for ctx.Err() == nil {
		time.Sleep(time.Duration(3+rng.IntN(15)) * time.Millisecond)
		id := r.peek(rng)
		if id == "" {
			continue
		}
		if _, err := r.sendDraft(l, id); err != nil {
			return // the daemon is gone: the round is over
		}
	}
}

// sendDraft sets the draft of request id's question to a fresh draft value
// and reports whether the daemon acknowledged it.
func (r *run) sendDraft(l *line, id string) (bool, error) {
	r.mu.Lock()
	r.nextDraft++
	value := fmt.Sprintf("draft-%d", r.nextDraft)
	r.mu.Unlock()
	m, err := l.callFor(id, fmt.Sprintf(`{"type":"draft","requestId":%q,"index":0,"answer":%q,"via":"pane"}`, id, value))
	if err != nil || m["type"] != "ok" {
		return false, err
	}
	r.count(func(rep *Report) { rep.DraftsAcked++ })
	return true, nil
}

// check starts the daemon once more and holds every acknowledgement against
// what it says.
func (r *run) check(ctx context.Context) error {
	cmd, err := r.start()
	if err != nil {
		return err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()
	l, err := r.dial(ctx)
	if err != nil {
		return err
	}
	m, err := l.call(`{"type":"list"}`)
	if err != nil {
		return err
	}
	pending := map[string]bool{}
	list, _ := m["pending"].([]any)
	for _, p := range list {
		if p, ok := p.(map[string]any); ok {
			pending[fmt.Sprint(p["requestId"])] = true
		}
	}
	lost := func(format string, args ...any) {
		r.rep.Lost++
		if len(r.rep.Problems) < 50 {
			r.rep.Problems = append(r.rep.Problems, fmt.Sprintf(format, args...))
		}
	}
	resolved := map[string]bool{}
	for id := range r.asked {
		promised, hasPromise := r.promised[id]
		if pending[id] {
			if hasPromise {
				lost("%s: acknowledged %+v, but pending again after the crashes", id, promised)
			}
			continue
		}
		m, err := l.call(fmt.Sprintf(`{"type":"wait","requestId":%q}`, id))
		if err != nil {
			return err
		}
		if m["type"] != "ask_user_response" {
			lost("%s: acknowledged ask, neither pending nor resolved: %v", id, m)
			continue
		}
		resolved[id] = true
		r.rep.Resolved++
		got := outcome{cancelled: m["cancelled"] == true}
		if answers, _ := m["answers"].([]any); len(answers) == 1 {
			got.answer = fmt.Sprint(answers[0].(map[string]any)["answer"])
		}
		via := fmt.Sprint(m["answeredVia"])
		if hasPromise && got != promised {
			lost("%s: acknowledged %+v, resolved as %+v via %s", id, promised, got, via)
		}
		r.checkGiven(id, got, via)
	}
	r.checkHistory(resolved)
	return nil
}

// checkGiven: a request resolved with an answer that no surface submitted
// for it is an answer the user did not give.
func (r *run) checkGiven(id string, got outcome, via string) {
	var why string
	switch {
	case got.cancelled && !r.cancelSent[id]:
		why = "cancelled, but nobody cancelled it"
	case got.cancelled:
		return
	case strings.HasPrefix(got.answer, "draft-"):
		why = fmt.Sprintf("answered %q via %s: a draft, which nobody submitted", got.answer, via)
	case !r.given[id][via+"="+got.answer]:
		why = fmt.Sprintf("answered %q via %s, which no %s gave it (given: %v)", got.answer, via, via, keys(r.given[id]))
	default:
		return
	}
	r.rep.NotGiven++
	if len(r.rep.Problems) < 50 {
		r.rep.Problems = append(r.rep.Problems, id+": "+why)
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkHistory: every resolved request is in history.jsonl exactly once.
func (r *run) checkHistory(resolved map[string]bool) {
	data, _ := os.ReadFile(filepath.Join(r.state, "history.jsonl"))
	count := map[string]int{}
	for _, ln := range strings.Split(string(data), "\n") {
		var h struct {
			RequestID string `json:"requestId"`
		}
		if json.Unmarshal([]byte(ln), &h) == nil && h.RequestID != "" {
			count[h.RequestID]++
		}
	}
	for id := range resolved {
		switch n := count[id]; {
		case n == 0:
			r.rep.Lost++
			r.rep.Problems = append(r.rep.Problems, id+": resolved, missing from history.jsonl")
		case n > 1:
			r.rep.Duplicated++
			r.rep.Problems = append(r.rep.Problems, fmt.Sprintf("%s: %d times in history.jsonl", id, n))
		}
	}
}

// tracer writes Options.Trace; its zero value (no writer) writes nothing.
type tracer struct {
	mu sync.Mutex
	w  io.Writer
}

// Write lets the daemon's output go to the trace whole lines at a time.
func (t *tracer) Write(p []byte) (int, error) {
	if t.w == nil {
		return len(p), nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.w.Write(p)
}

func (t *tracer) printf(format string, args ...any) {
	if t.w != nil {
		fmt.Fprintf(t, "crashloop %s %s\n", time.Now().UTC().Format("15:04:05.000000"), fmt.Sprintf(format, args...))
	}
}
