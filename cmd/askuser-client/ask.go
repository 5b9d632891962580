package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"askuser/internal/shell"
	"askuser/socketproto"
	"askuser/socketproto/agenttool"
	"askuser/socketproto/askclient"
	"askuser/socketproto/peertrust"
)

const askSynopsis = `ask [FILE|-] [flags]
       ask --question TEXT [--header H] [--option LABEL[=DESCRIPTION]]... [--multi] [flags]

FILE (or - for stdin) holds a request object ({"questions": [...], ...}) or just
its list of questions. Exit: 0 answered (or parked with --no-wait), 1 refused or
failed, 2 usage, 3 cancelled by the user, 4 daemon unreachable or connection lost,
130 interrupted (Ctrl-C; 128 + the signal's number for SIGTERM, SIGHUP): the
question is withdrawn.`

// askFlags are ask's flags; wait shares the output ones.
type askFlags struct {
	format    string
	question  listFlag // one; a second is refused, not let to replace the first
	header    string
	options   listFlag
	multi     bool
	tool      string
	requestID string
	agentID   string
	subagent  bool
	metadata  listFlag
	noWait    bool
}

var askCommand = command{
	name:     "ask",
	summary:  "ask the user and wait for the answer",
	synopsis: askSynopsis,
	daemon:   startDaemon,
	args:     anyArgs, // FILE, or none with --question: request checks which
	setup: func(fs *flag.FlagSet) func(*invocation) error {
		var f askFlags
		fs.StringVar(&f.format, "format", "json", "output: json, claude, pi or text")
		fs.Var(&f.question, "question", "`TEXT` of the one question the flags ask (for several, give a request as FILE)")
		fs.StringVar(&f.header, "header", "", "the question's short header")
		fs.Var(&f.options, "option", "an option `LABEL[=DESCRIPTION]` (repeatable)")
		fs.BoolVar(&f.multi, "multi", false, "several options may be chosen")
		fs.StringVar(&f.tool, "tool", "", "profile: ask_user (flexible, default) or ask_user_question (strict)")
		fs.StringVar(&f.requestID, "request-id", "", "the request's id (default: made up)")
		fs.StringVar(&f.agentID, "agent-id", "", "who asks (default: $ASKUSER_AGENT_ID)")
		fs.BoolVar(&f.subagent, "subagent", false, "the asker is a sub-agent (it will be refused)")
		fs.Var(&f.metadata, "metadata", "`KEY=VALUE` attached to the request (repeatable)")
		fs.BoolVar(&f.noWait, "no-wait", false, "queue the request and return at once; collect the result with wait")
		return f.run
	},
}

// run asks and prints the result; its exit code says how it ended (docs/contract.md §7).
func (f *askFlags) run(x *invocation) error {
	if !validFormat(f.format) {
		return usagef("--format: must be json, claude, pi or text, got %q", f.format)
	}
	req, src, err := f.request(x.args, x.stdin)
	if err != nil {
		var ue usageErr
		if errors.As(err, &ue) {
			return usagef("%s", ue.msg)
		}
		fmt.Fprintf(x.stderr, "askuser-client ask: %s: %v\n", src, err)
		return exitStatus(exitUsage)
	}
	c, err := x.client()
	if err != nil {
		return exitStatus(askFailure(x.stdout, x.stderr, "ask", f.format, req.RequestID, err))
	}
	ctx, sig, stop := signalContext()
	defer stop()

	if f.noWait || !req.Waits() { // a request file may say "wait": false itself
		q, err := c.Park(ctx, req)
		if err != nil {
			return exitStatus(askFailure(x.stdout, x.stderr, "ask", f.format, req.RequestID, inFlagTerms(src, req, err)))
		}
		pendingFile := q.PendingFile
		if pendingFile == "" {
			cfg, _ := x.config()
			pendingFile = cfg.PendingFilePath()
		}
		printParked(x.stdout, x.stderr, q.RequestID, pendingFile, req.Questions)
		return nil
	}
	resp, err := c.Ask(ctx, req, nil)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(x.stderr, "askuser-client ask: interrupted; request %s withdrawn\n", req.RequestID)
			return exitStatus(signalExit(sig()))
		}
		return exitStatus(askFailure(x.stdout, x.stderr, "ask", f.format, req.RequestID, inFlagTerms(src, req, err)))
	}
	return exitStatus(printResult(x.stdout, x.stderr, f.format, resp))
}

// questionField is a field of the one question --question asks, as the
// daemon names it: questions[0].options[1].label.
var questionField = regexp.MustCompile(`questions\[0\]\.(question|header|multiSelect|options\[(\d+)\](?:\.(label|description))?|options)`)

// inFlagTerms is the daemon's refusal of a request the flags built (src
// "flags"), said in the flags' words: "--option "A" given twice", not
// "questions[0].options[1].label: duplicate of questions[0].options[0].label".
// The error's field stays the request's, for a program reading --format json.
func inFlagTerms(src string, req socketproto.AskUserRequest, err error) error {
	var pe *socketproto.Error
	if src != "flags" || !errors.As(err, &pe) || !strings.HasPrefix(pe.Field, "questions[0].") {
		return err
	}
	msg := pe.Message
	if m := questionField.FindStringSubmatch(pe.Field); m != nil && m[2] != "" && strings.Contains(msg, ": duplicate of ") {
		n, _ := strconv.Atoi(m[2])
		label := "#" + m[2]
		if len(req.Questions) == 1 && n < len(req.Questions[0].Options) {
			label = strings.TrimSpace(req.Questions[0].Options[n].Label)
		}
		msg = fmt.Sprintf("--option %q given twice: each option needs a label of its own", label)
	} else {
		msg = questionField.ReplaceAllStringFunc(msg, func(s string) string {
			m := questionField.FindStringSubmatch(s)
			switch {
			case m[1] == "question" || m[1] == "header":
				return "--" + m[1]
			case m[1] == "multiSelect":
				return "--multi"
			case m[2] != "":
				n, _ := strconv.Atoi(m[2])
				if m[3] == "description" {
					return fmt.Sprintf("the description of --option %d (after its =)", n+1)
				}
				return fmt.Sprintf("--option %d", n+1)
			}
			return "--option"
		})
	}
	return &socketproto.Error{RequestID: pe.RequestID, Code: pe.Code, Message: msg, Field: pe.Field}
}

// usageErr marks input mistakes that are about the flags, not the file.
type usageErr struct{ msg string }

func (e usageErr) Error() string { return e.msg }

// request builds the request from the file or the flags, then applies the
// flags that override it. src names the input for error messages.
func (f *askFlags) request(pos []string, stdin io.Reader) (socketproto.AskUserRequest, string, error) {
	if err := f.checkSource(pos); err != nil {
		return socketproto.AskUserRequest{}, "", err
	}
	req, src, err := f.questions(pos, stdin)
	if err != nil {
		return req, src, err
	}
	if err := f.override(&req); err != nil {
		return req, src, err
	}
	req.Agent = f.agent(req.Agent)
	if req.RequestID == "" {
		// Made here rather than by the daemon so that the id is known (for
		// messages, a withdrawal, a resumed wait) before any reply.
		req.RequestID = askclient.NewRequestID()
	}
	return req, src, nil
}

// checkSource says what is wrong with where the questions come from: one
// --question, or one FILE (- for stdin), never both.
func (f *askFlags) checkSource(pos []string) error {
	fromFlags := len(f.question) > 0
	if len(f.question) > 1 {
		return usageErr{fmt.Sprintf("--question given %d times: the flags ask one question; for several, give a request as FILE, or - for stdin (askuser-client schema ask_user prints its shape)", len(f.question))}
	}
	if !fromFlags && (f.header != "" || len(f.options) > 0 || f.multi) {
		return usageErr{"--header, --option and --multi describe a --question; give --question too"}
	}
	switch {
	case len(pos) > 1:
		return usageErr{fmt.Sprintf("one FILE at most, got %d arguments", len(pos))}
	case fromFlags && len(pos) == 1:
		return usageErr{"give the questions either as FILE or with --question, not both"}
	case !fromFlags && len(pos) == 0:
		return usageErr{"no questions: give a FILE, - for stdin, or --question"}
	}
	return nil
}

// questions reads the request from the flags, or from the FILE checkSource
// allowed; src names it.
func (f *askFlags) questions(pos []string, stdin io.Reader) (req socketproto.AskUserRequest, src string, err error) {
	if len(f.question) > 0 {
		q := socketproto.Question{Question: f.question[0], Header: f.header, MultiSelect: &f.multi}
		for _, o := range f.options {
			label, desc, _ := strings.Cut(o, "=")
			q.Options = append(q.Options, socketproto.Option{Label: label, Description: desc})
		}
		req.Questions = []socketproto.Question{q}
		return req, "flags", nil
	}
	var data []byte
	if src = pos[0]; src == "-" {
		src = "stdin"
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(src)
	}
	if err != nil {
		return req, src, err
	}
	req, err = parseRequestInput(data)
	return req, src, err
}

// override applies --tool, --request-id and --metadata over what the
// request says.
func (f *askFlags) override(req *socketproto.AskUserRequest) error {
	if f.tool != "" {
		if f.tool != socketproto.ToolAskUser && f.tool != socketproto.ToolAskUserQuestion {
			return usageErr{fmt.Sprintf("--tool: must be ask_user or ask_user_question, got %q", f.tool)}
		}
		req.Tool = f.tool
	}
	if f.requestID != "" {
		req.RequestID = f.requestID
	}
	if len(f.metadata) == 0 {
		return nil
	}
	md := map[string]any{}
	if len(req.Metadata) > 0 {
		if err := json.Unmarshal(req.Metadata, &md); err != nil {
			return fmt.Errorf("metadata: %v", err)
		}
	}
	for _, kv := range f.metadata {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usageErr{fmt.Sprintf("--metadata: want KEY=VALUE, got %q", kv)}
		}
		md[k] = v
	}
	b, _ := json.Marshal(md)
	req.Metadata = b
	return nil
}

// agent merges who asks: the flags win, then the file, then the environment;
// a sub-agent mark from any of them sticks, so a file cannot unmark a
// sub-agent whose harness set ASKUSER_SUBAGENT.
func (f *askFlags) agent(fromFile *socketproto.Agent) *socketproto.Agent {
	env := askclient.AgentFromEnv()
	a := env
	if fromFile != nil {
		a = *fromFile
		if a.ID == "" {
			a.ID = env.ID
		}
		if a.ParentID == "" {
			a.ParentID = env.ParentID
		}
		if a.Cwd == "" {
			a.Cwd = env.Cwd
		}
		a.Subagent = a.Subagent || env.Subagent
	}
	if f.agentID != "" {
		a.ID = f.agentID
	}
	a.Subagent = a.Subagent || f.subagent
	if a.ID == "" && a.Name == "" {
		// Say at least which program asked ("claude", "bash"), so the pane
		// never shows an anonymous question.
		a.Name = parentProcessName()
	}
	return &a
}

// parentProcessName is the command name of the process that ran us, or "".
func parentProcessName() string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", os.Getppid()))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func validFormat(f string) bool {
	switch f {
	case "json", "claude", "pi", "text":
		return true
	}
	return false
}

// printResult prints an answered or cancelled result and says how to exit.
func printResult(stdout, stderr io.Writer, format string, resp socketproto.Response) int {
	if err := writeResult(stdout, format, resp); err != nil {
		fmt.Fprintf(stderr, "askuser-client: writing the result: %v\n", err)
		return exitFailed
	}
	switch {
	case resp.Cancelled:
		return exitCancelled
	case resp.ConnectionLost:
		return exitUnreachable
	case !resp.Answered:
		return exitFailed
	}
	return exitOK
}

func writeResult(w io.Writer, format string, resp socketproto.Response) error {
	switch format {
	case "claude":
		return writeJSON(w, agenttool.ClaudeShape(resp))
	case "pi":
		return writeJSON(w, agenttool.PiShape(resp))
	case "text":
		_, err := io.WriteString(w, agenttool.TextShape(resp))
		return err
	}
	// The fields in the daemon's order; a lost connection has no answer time.
	out := struct {
		socketproto.Response
		AnsweredAt *time.Time `json:"answeredAt,omitempty"`
	}{Response: resp}
	if !resp.AnsweredAt.IsZero() {
		out.AnsweredAt = &resp.AnsweredAt
	}
	return writeJSON(w, out)
}

// startHint says how to start the daemon when it could not be reached.
const startHint = "Start it with 'askuserd' in a terminal (the pane), or 'askuserd serve' in the background."

// askFailure reports a failed ask or wait: a refusal (exit 1, the error object
// on stdout with --format json), or an unreachable daemon or lost connection
// (exit 4, a result saying connectionLost).
func askFailure(stdout, stderr io.Writer, cmd, format, requestID string, err error) int {
	code := failure(stderr, cmd, err)
	if code == exitUnreachable {
		lost := socketproto.Response{RequestID: requestID, Answers: []socketproto.Answer{},
			AnswersByQuestion: map[string]string{}, ConnectionLost: true,
			Summary: "The connection to askuserd was lost before the user answered."}
		if errors.Is(err, askclient.ErrUnreachable) && !errors.Is(err, askclient.ErrConnectionLost) {
			lost.Summary = "askuserd could not be reached; the question was not asked. " + startHint
			if cmd == "wait" {
				lost.Summary = "askuserd could not be reached; no result was collected. " + startHint
			}
			var refusal *peertrust.Refusal
			var startRefusal *askclient.StartRefusal
			switch {
			case errors.As(err, &refusal):
				// Starting askuserd would not help: the socket is not the user's.
				lost.Summary = "The question was not asked: " + refusal.Error()
			case errors.As(err, &startRefusal):
				// Nor here: the daemon said why it will not run.
				lost.Summary = "The question was not asked: askuserd would not start: " + startRefusal.Reason
			}
		}
		_ = writeResult(stdout, format, lost)
		return code
	}
	var pe *socketproto.Error
	if format == "json" && errors.As(err, &pe) {
		writeProtoError(stdout, pe)
	}
	return code
}

// printParked prints a parked request's id alone on stdout, so that
// `id=$(askuser-client ask --no-wait …)` works, and tells the user (or agent)
// on stderr how to answer it and collect its result.
func printParked(stdout, w io.Writer, id, pendingFile string, qs []socketproto.Question) {
	sample := make([]string, len(qs))
	for i, q := range qs {
		s := "your answer"
		if len(q.Options) > 0 {
			s = q.Options[0].Label
		}
		sample[i] = shell.Quote(s)
	}
	fmt.Fprintln(stdout, id)
	fmt.Fprintf(w, "Request %s is waiting for the user. To answer it:\n", id)
	fmt.Fprintf(w, "  in the pending file: %s (fill in each \"answer\" and save)\n", pendingFile)
	if approves(qs) {
		// An approval is answered only with its input seen: show prints
		// it whole, and the answer command that goes with it.
		fmt.Fprintf(w, "  or:                  askuser-client show %s, then the answer it prints\n", id)
	} else {
		fmt.Fprintf(w, "  or:                  askuser-client answer %s %s\n", id, strings.Join(sample, " "))
	}
	fmt.Fprintf(w, "Collect the result:    askuser-client wait %s\n", id)
}
