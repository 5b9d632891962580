package panecore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"askuser/socketproto"
)

// The core's behaviour is pinned by scenario files, testdata/*.txtar: what
// the daemon says and what the user does go in, and the view and the
// messages sent are checked, one line at a time. A new case is a new file;
// README.md in testdata lists the commands.
func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txtar")
	if len(files) == 0 {
		t.Fatal("no scenarios in testdata")
	}
	shared := loadQuestions(t, "testdata/questions")
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, err := parseArchive(f)
			if err != nil {
				t.Fatal(err)
			}
			script, ok := ar.files["script"]
			if !ok {
				t.Fatalf("%s: no -- script -- section", f)
			}
			sc := &scenario{t: t, name: f, questions: map[string]socketproto.Question{}, now: scenarioEpoch}
			for k, v := range shared {
				sc.questions[k] = v
			}
			for name, body := range ar.files {
				if q, ok := strings.CutSuffix(name, ".json"); ok {
					sc.questions[q] = decodeQuestion(t, name, body)
				}
			}
			sc.run(script)
		})
	}
}

var scenarioEpoch = time.Date(2026, 11, 21, 21, 0, 0, 0, time.UTC)

// archive is a txtar file: a comment, then "-- name --" sections.
type archive struct {
	comment string
	files   map[string]string
}

func parseArchive(path string) (archive, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return archive{}, err
	}
	ar := archive{files: map[string]string{}}
	name, body := "", &strings.Builder{}
	flush := func() {
		if name == "" {
			ar.comment = body.String()
		} else {
			ar.files[name] = body.String()
		}
		body.Reset()
	}
	for _, line := range strings.SplitAfter(string(b), "\n") {
		l := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") && len(l) > 6 {
			flush()
			name = strings.TrimSpace(l[3 : len(l)-3])
			continue
		}
		body.WriteString(line)
	}
	flush()
	return ar, nil
}

func loadQuestions(t *testing.T, dir string) map[string]socketproto.Question {
	out := map[string]socketproto.Question{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = decodeQuestion(t, f, string(b))
	}
	return out
}

func decodeQuestion(t *testing.T, name, body string) socketproto.Question {
	q, perr := socketproto.DecodeQuestion([]byte(body), name)
	if perr != nil {
		t.Fatalf("%s: %v", name, perr)
	}
	if q.Input != nil {
		q = socketproto.ApplyInput(q) // its options, as the daemon fills them in
	}
	return q
}

// recorder is the scenario's daemon end: what the core sent, in order.
type recorder struct {
	sent []socketproto.Message
	fail string
}

func (r *recorder) Send(m socketproto.Message) error {
	if r.fail != "" {
		return errors.New(r.fail)
	}
	r.sent = append(r.sent, m)
	return nil
}

type scenario struct {
	t         *testing.T
	name      string
	line      int
	questions map[string]socketproto.Question
	now       time.Time
	core      *Core
	rec       recorder
	created   int
	log       []string // what happened, for a failure's report
}

func (sc *scenario) fatalf(format string, args ...any) {
	sc.t.Helper()
	sc.t.Fatalf("%s:%d: %s\n--- so far:\n%s\n--- view:\n%s", sc.name, sc.line, fmt.Sprintf(format, args...),
		strings.Join(sc.log, "\n"), sc.viewJSON())
}

func (sc *scenario) viewJSON() string {
	if sc.core == nil {
		return "(no core)"
	}
	b, _ := json.MarshalIndent(sc.core.View(), "", "  ")
	return string(b)
}

// start makes the core, from a "core" line or with the defaults.
func (sc *scenario) start(args []string) {
	opt := Options{Socket: "/run/user/1000/askuser/askuserd.sock", Now: func() time.Time { return sc.now }}
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "guard":
			d, err := time.ParseDuration(v)
			if err != nil {
				sc.fatalf("guard: %v", err)
			}
			opt.InputGuard = d
		case "softlimit":
			opt.SoftLimit, _ = strconv.Atoi(v)
		case "bell":
			opt.Bell = true
		case "demo":
			opt.Demo = true
		case "warning":
			opt.Warnings = append(opt.Warnings, unquote(v))
		default:
			sc.fatalf("core: unknown option %q", a)
		}
	}
	sc.core = New(&sc.rec, opt)
}

func (sc *scenario) run(script string) {
	for i, raw := range strings.Split(script, "\n") {
		sc.line = i + 1
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		sc.log = append(sc.log, line)
		args := fields(line)
		if sc.core == nil && args[0] != "core" {
			sc.start(nil)
		}
		switch args[0] {
		case "core":
			sc.start(args[1:])
		case "clock":
			d, err := time.ParseDuration(strings.TrimPrefix(args[1], "+"))
			if err != nil {
				sc.fatalf("clock: %v", err)
			}
			sc.now = sc.now.Add(d)
		case "wake":
			if got := sc.core.NextWake().String(); got != args[1] {
				sc.fatalf("next wake in %s, want %s", got, args[1])
			}
		case "tick":
			sc.core.Tick()
		case "close":
			sc.core.Close()
		case "hidden":
			sc.core.SetHidden(args[1] == "true")
		case "sender":
			sc.rec.fail = ""
			if args[1] == "fail" {
				sc.rec.fail = unquote(strings.Join(args[2:], " "))
			}
		case "event":
			sc.core.Event(sc.event(args[1:]))
		case "do":
			sc.do(args[1:])
		case "shown":
			n := ints(sc, args[2:], 6)
			sc.core.PreviewShown(args[1], n[0], n[1], n[2], n[3], n[4], n[5])
		case "view":
			sc.checkView(args[1:])
		case "sent":
			sc.checkSent(strings.TrimSpace(strings.TrimPrefix(line, "sent")))
		case "drafts":
			sc.dropDrafts()
		default:
			sc.fatalf("unknown command %q", args[0])
		}
		sc.checkCache()
	}
	if len(sc.rec.sent) > 0 {
		sc.fatalf("sent and not checked: %s", sc.pendingSent())
	}
}

// checkCache holds the view built from what the core kept of the last one
// to a view built afresh: whatever changed a request must have said so.
func (sc *scenario) checkCache() {
	if sc.core == nil {
		return
	}
	kept, _ := json.Marshal(sc.core.View())
	for _, r := range sc.core.st.m.Reqs {
		r.view = nil
	}
	fresh, _ := json.Marshal(sc.core.View())
	if string(kept) != string(fresh) {
		sc.fatalf("the view kept a request that changed:\nkept  %s\nfresh %s", kept, fresh)
	}
}

// pending builds request "id:q1,q2" (questions by fixture name) with an
// optional draft, a JSON array with one element a question.
func (sc *scenario) pending(spec string, draft string) socketproto.Pending {
	id, qs, _ := strings.Cut(spec, ":")
	sc.created++
	p := socketproto.Pending{
		Request: socketproto.Request{RequestID: id,
			Agent: &socketproto.Agent{ID: "a1", Name: "claude-main"}},
		CreatedAt: scenarioEpoch.Add(-3*time.Minute + time.Duration(sc.created)*time.Millisecond),
		Status:    socketproto.StatusWaiting,
	}
	for _, name := range strings.Split(qs, ",") {
		if name == "" {
			continue
		}
		q, ok := sc.questions[name]
		if !ok {
			sc.fatalf("no question fixture %q", name)
		}
		p.Questions = append(p.Questions, q)
	}
	p.Draft = make([]json.RawMessage, len(p.Questions))
	if draft != "" {
		var d []json.RawMessage
		if err := json.Unmarshal([]byte(draft), &d); err != nil {
			sc.fatalf("draft %s: %v", draft, err)
		}
		copy(p.Draft, d)
	}
	return p
}

// event is a daemon message: a shorthand, or its wire form.
func (sc *scenario) event(args []string) socketproto.Message {
	rest := func(i int) string {
		if len(args) > i {
			return args[i]
		}
		return ""
	}
	switch args[0] {
	case "snapshot":
		var ps []socketproto.Pending
		for _, a := range args[1:] {
			spec, draft, _ := strings.Cut(a, "=")
			ps = append(ps, sc.pending(spec, draft))
		}
		return socketproto.Snapshot{State: socketproto.StateWaiting, Pending: ps}
	case "added":
		return socketproto.RequestAdded{Request: sc.pending(args[1], rest(2))}
	case "updated":
		p := sc.pending(args[1], rest(2))
		if old := sc.findCreated(p.RequestID); !old.IsZero() {
			p.CreatedAt = old
		}
		return socketproto.RequestUpdated{Request: p}
	case "resolved":
		return socketproto.RequestResolved{RequestID: args[1], Outcome: socketproto.Outcome(args[2]), Via: socketproto.Via(rest(3))}
	case "ok":
		return socketproto.OK{RequestID: rest(1)}
	case "error":
		return &socketproto.Error{RequestID: args[1], Code: socketproto.ErrorCode(args[2]), Message: unquote(strings.Join(args[3:], " "))}
	case "lost":
		return ConnLost{Err: unquote(strings.Join(args[1:], " "))}
	case "raw":
		m, err := socketproto.DecodeFromDaemon([]byte(strings.Join(args[1:], " ")))
		if err != nil {
			sc.fatalf("raw event: %v", err)
		}
		return m
	}
	sc.fatalf("unknown event %q", args[0])
	return nil
}

// findCreated keeps an updated request where it was in the queue.
func (sc *scenario) findCreated(id string) time.Time {
	for _, r := range sc.core.st.m.Reqs {
		if r.P.RequestID == id {
			return r.P.CreatedAt
		}
	}
	return time.Time{}
}

// do is a user action: "do KIND key=value…", made against the view the
// user sees now unless rev= says otherwise ("rev=-1": one older).
func (sc *scenario) do(args []string) {
	a := Action{Kind: Kind(args[0]), Rev: sc.core.View().Rev}
	for _, kv := range args[1:] {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "item":
			a.Item = atoi(sc, v)
		case "delta":
			a.Delta = atoi(sc, v)
		case "text":
			a.Text = unquote(v)
		case "request":
			a.Request = v
		case "rev":
			a.Rev = uint64(int(a.Rev) + atoi(sc, v))
		case "question":
			a.Question = atoi(sc, v)
		default:
			sc.fatalf("do: unknown field %q", k)
		}
	}
	ref := sc.core.Do(a)
	if ref != nil {
		sc.log = append(sc.log, "  refused: "+ref.Text)
	}
}

// checkView compares the view at a path with JSON, or ("~") contains text.
// Paths are dotted, with indices; "req" is the request on screen and "q"
// its question on screen.
func (sc *scenario) checkView(args []string) {
	if len(args) < 2 {
		sc.fatalf("view: want a path and a value")
	}
	var v any
	_ = json.Unmarshal([]byte(sc.viewJSON()), &v)
	got, ok := lookup(v, expandPath(v, args[0]))
	if args[1] == "~" {
		want := unquote(strings.Join(args[2:], " "))
		s, _ := got.(string)
		if !ok || !strings.Contains(s, want) {
			sc.fatalf("view %s = %s, want it to contain %q", args[0], show(got, ok), want)
		}
		return
	}
	if args[1] == "!~" {
		want := unquote(strings.Join(args[2:], " "))
		if s, _ := got.(string); strings.Contains(s, want) {
			sc.fatalf("view %s = %s, want it without %q", args[0], show(got, ok), want)
		}
		return
	}
	wantText := strings.Join(args[1:], " ")
	var want any
	if err := json.Unmarshal([]byte(wantText), &want); err != nil {
		sc.fatalf("view %s: want %s is not JSON: %v", args[0], wantText, err)
	}
	if !ok && (want == nil || want == false || want == 0.0 || want == "") {
		return // absent is the zero value (omitempty)
	}
	if !reflect.DeepEqual(got, want) {
		sc.fatalf("view %s = %s, want %s", args[0], show(got, ok), wantText)
	}
}

func show(v any, ok bool) string {
	if !ok {
		return "(absent)"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func expandPath(v any, path string) []string {
	parts := strings.Split(path, ".")
	root, _ := v.(map[string]any)
	focus := fmt.Sprint(root["focus"])
	switch parts[0] {
	case "req", "q":
		p := []string{"requests", focus}
		if parts[0] == "q" {
			r, _ := lookup(v, p)
			tab := "0"
			if m, ok := r.(map[string]any); ok {
				tab = fmt.Sprint(m["tab"])
			}
			p = append(p, "questions", tab)
		}
		return append(p, parts[1:]...)
	}
	return parts
}

func lookup(v any, path []string) (any, bool) {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[p]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// checkSent takes the oldest message sent and compares it with JSON (its
// wire form); "sent nothing" says nothing was sent since.
func (sc *scenario) checkSent(want string) {
	if want == "nothing" {
		if len(sc.rec.sent) > 0 {
			sc.fatalf("sent %s, want nothing", sc.pendingSent())
		}
		return
	}
	if len(sc.rec.sent) == 0 {
		sc.fatalf("nothing sent, want %s", want)
	}
	m := sc.rec.sent[0]
	sc.rec.sent = sc.rec.sent[1:]
	b, _ := socketproto.Encode(m)
	var got, w any
	_ = json.Unmarshal(b, &got)
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		sc.fatalf("sent: want %s is not JSON: %v", want, err)
	}
	if !reflect.DeepEqual(got, w) {
		sc.fatalf("sent %s\nwant %s", strings.TrimSpace(string(b)), want)
	}
}

func (sc *scenario) pendingSent() string {
	var out []string
	for _, m := range sc.rec.sent {
		b, _ := socketproto.Encode(m)
		out = append(out, strings.TrimSpace(string(b)))
	}
	return strings.Join(out, "\n")
}

// dropDrafts forgets the drafts sent so far ("drafts skip"): a scenario
// about something else need not list them.
func (sc *scenario) dropDrafts() {
	var keep []socketproto.Message
	for _, m := range sc.rec.sent {
		if _, ok := m.(socketproto.DraftRequest); !ok {
			keep = append(keep, m)
		}
	}
	sc.rec.sent = keep
}

// fields splits a line at spaces, keeping "quoted strings" (Go syntax) and
// a JSON value that starts a field ({ or [) to the end of its brackets.
func fields(line string) []string {
	var out []string
	for i := 0; i < len(line); {
		if line[i] == ' ' || line[i] == '\t' {
			i++
			continue
		}
		j := i
		depth, inStr := 0, false
		for ; j < len(line); j++ {
			c := line[j]
			switch {
			case inStr && c == '\\':
				j++
			case c == '"':
				inStr = !inStr
			case inStr:
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
			case (c == ' ' || c == '\t') && depth == 0:
				goto done
			}
		}
	done:
		out = append(out, line[i:j])
		i = j
	}
	return out
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}

func atoi(sc *scenario, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		sc.fatalf("%q is not a number", s)
	}
	return n
}

func ints(sc *scenario, args []string, n int) []int {
	if len(args) != n {
		sc.fatalf("want %d numbers, got %v", n, args)
	}
	out := make([]int, n)
	for i, a := range args {
		out[i] = atoi(sc, a)
	}
	return out
}
