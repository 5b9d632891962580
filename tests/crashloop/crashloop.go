// Package crashloop proves SPEC §10's promise by breaking it: it runs the
// real askuserd under mixed load (waiting and parked asks; answers and
// cancels over the socket, through askuser-client and through the pending
// file), SIGKILLs it at random moments, starts it again on the same state
// dir, and finally checks every acknowledgement it received against what
// the daemon holds: an acknowledged ask is pending or resolved, an
// acknowledged answer or cancel is the request's one resolution, nothing is
// resolved twice, and history.jsonl has each resolved request exactly once.
// The end-to-end test runs it briefly; bench/crashloop runs it as a soak.
package crashloop

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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
}

// Report counts what the run checked and what it found wrong.
type Report struct {
	Kills                                 int
	AsksAcked, AnswersAcked, CancelsAcked int
	FileSaves                             int
	Resolved                              int // requests resolved by the end
	Lost                                  int // acknowledged, then missing or resolved otherwise
	Duplicated                            int // resolved twice, or twice in history
	Problems                              []string
}

func (r Report) String() string {
	return fmt.Sprintf("kills %d; acks checked: %d asks, %d answers, %d cancels (plus %d pending-file saves); resolved %d; lost %d; duplicated %d",
		r.Kills, r.AsksAcked, r.AnswersAcked, r.CancelsAcked, r.FileSaves, r.Resolved, r.Lost, r.Duplicated)
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

	mu       sync.Mutex
	asked    map[string]bool    // acknowledged asks
	open     []string           // asked and, as far as we know, not resolved
	promised map[string]outcome // acknowledged answers and cancels
	rep      Report
	nextID   int
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
		asked: map[string]bool{}, promised: map[string]outcome{}}
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
	cmd := exec.Command(r.opts.Askuserd, "serve", "--log-level", "error")
	cmd.Env = r.env
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
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
// with SIGKILL at a random moment.
func (r *run) round(ctx context.Context) error {
	cmd, err := r.start()
	if err != nil {
		return err
	}
	load, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for w, work := range []func(context.Context, *rand.Rand){r.asker, r.asker, r.answerer, r.canceller, r.cliAnswerer, r.fileAnswerer} {
		wg.Add(1)
		seed := r.rng.Uint64()
		go func() {
			defer wg.Done()
			work(load, rand.New(rand.NewPCG(seed, uint64(w))))
		}()
	}
	time.Sleep(time.Duration(r.rng.Int64N(int64(r.opts.Load))) + time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	stop()
	wg.Wait()
	return nil
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
		m, err := l.call(fmt.Sprintf(`{"type":"answer","requestId":%q,"answers":[%q],"via":"pane"}`, id, a))
		if err == nil && m["type"] == "ok" {
			r.promise(id, outcome{answer: a}, false)
		}
	})
}

// canceller declines open requests over the socket, as the CLI does.
func (r *run) canceller(ctx context.Context, rng *rand.Rand) {
	r.resolveLoop(ctx, rng, func(l *line, id string) {
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
		cmd := exec.CommandContext(ctx, r.opts.Client, "answer", "--no-autostart", id, fmt.Sprint(n))
		cmd.Env = r.env
		if cmd.Run() == nil {
			r.promise(id, outcome{answer: options[n-1]}, false)
		}
	}
}

// fileAnswerer fills answers into the pending file and saves it by rename,
// as editors do. A save has no acknowledgement; the check only demands that
// whatever the file resolved is what was written there.
func (r *run) fileAnswerer(ctx context.Context, rng *rand.Rand) {
	path := filepath.Join(r.state, "pending-questions.json")
	for ctx.Err() == nil {
		time.Sleep(time.Duration(5+rng.IntN(20)) * time.Millisecond)
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var f map[string]any
		if json.Unmarshal(data, &f) != nil {
			continue
		}
		reqs, _ := f["requests"].([]any)
		if len(reqs) == 0 {
			continue
		}
		req, _ := reqs[rng.IntN(len(reqs))].(map[string]any)
		qs, _ := req["questions"].([]any)
		if len(qs) == 0 {
			continue
		}
		q, _ := qs[0].(map[string]any)
		q["answer"] = "MongoDB"
		out, _ := json.MarshalIndent(f, "", "  ")
		tmp := path + ".crashloop~"
		if os.WriteFile(tmp, out, 0o600) != nil || os.Rename(tmp, path) != nil {
			continue
		}
		r.mu.Lock()
		r.rep.FileSaves++
		r.mu.Unlock()
	}
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
		switch {
		case hasPromise && got != promised:
			lost("%s: acknowledged %+v, resolved as %+v via %s", id, promised, got, via)
		case !hasPromise && via == "file" && got.answer != "MongoDB":
			lost("%s: resolved via the file as %+v, which the file never said", id, got)
		}
	}
	r.checkHistory(resolved)
	return nil
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
