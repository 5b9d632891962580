package panecore

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"askuser/socketproto"
	"askuser/socketproto/agenttext"
)

// view is the state to draw. Requests nothing touched since the last view
// are taken from it (their age brought up to date): a View's slices are
// shared with later ones, so a face reads a View and never changes it.
func (st *state) view() View {
	now := st.opt.Now()
	v := View{
		Rev:      st.rev,
		Settling: st.settling(),
		Demo:     st.opt.Demo,
		Socket:   st.opt.Socket,
		Requests: []RequestView{},
		Focus:    st.m.FocusIndex(),
		Notices:  st.notices(),
		ConnLost: st.connErr,
		Hint:     st.hint,
		Bells:    st.bell.rings,
		Rang:     st.bell.rang,
		Rules:    st.rules.list,
		Actions:  st.actions(),
	}
	if v.Settling {
		v.SettleLeft = st.settleUntil.Sub(now)
	}
	if st.refused != nil {
		ref := *st.refused
		v.Refusal = &ref
	}
	for _, r := range st.m.Reqs {
		if r.view == nil {
			rv := requestView(r)
			r.view = &rv
		}
		rv := *r.view
		if !rv.CreatedAt.IsZero() {
			rv.Age = Age(now.Sub(rv.CreatedAt))
		}
		v.Requests = append(v.Requests, rv)
	}
	r, s := st.context()
	if st.edit.q != nil {
		// Open, or under a dialog about it (a long answer, discarding it).
		in := &InputView{Request: st.edit.req.P.RequestID, Question: st.edit.req.index(st.edit.q), Text: st.edit.text}
		md := st.mode
		if md == modeDiscard {
			md = st.discard.back
		}
		switch md {
		case modeNote:
			in.Kind, in.Placeholder = InputNote, "a note to go with the answer"
		case modeFilter:
			in.Kind, in.Placeholder = InputFilter, "filter options"
		default:
			in.Kind, in.Placeholder = InputAnswer, "type your answer"
			// A typed answer is checked as it is typed.
			in.Problem = st.edit.q.TypedProblem(agenttext.Typed(st.edit.text))
			if in.Problem != "" {
				in.ProblemText = problemText(in.Problem)
			}
		}
		v.Input = in
	}
	if r != nil {
		d := &Dialog{Request: r.P.RequestID, Question: r.Tab}
		switch st.mode {
		case modeLong:
			n := utf8.RuneCountInString(st.edit.text)
			d.Kind, d.N, d.DefaultYes = DialogLong, n, true
			d.Text = fmt.Sprintf("Answer is long (%s chars). Continue anyway?", thousands(n))
		case modeDiscard:
			d.Kind, d.N = DialogDiscard, st.discard.n
			d.Text = fmt.Sprintf("Discard %s?", plural(st.discard.n, "answer"))
		case modeNone:
			d.Kind, d.Text = DialogNone, "None of these?"
			if s != nil {
				d.Text = fmt.Sprintf("None of these for “%s”?", cut(agenttext.Clean(s.Q.Question, false), 60))
			}
		default:
			d = nil
		}
		v.Dialog = d
	}
	return v
}

func requestView(r *Req) RequestView {
	rv := RequestView{
		ID:          r.P.RequestID,
		Agent:       agentName(r),
		About:       requestAbout(r),
		CreatedAt:   r.P.CreatedAt,
		Status:      string(r.P.Status),
		StatusText:  statusText(r.P.Status),
		Name:        requestName(r),
		Tab:         r.Tab,
		OnSubmit:    r.OnSubmit(),
		Sending:     r.Sending,
		AnswerSends: answerSends(r),
	}
	for _, s := range r.Qs {
		qv := questionView(s)
		if qv.Missing {
			rv.Missing++
		}
		rv.Questions = append(rv.Questions, qv)
	}
	return rv
}

// statusText says a request's status in words, "" while it waits.
func statusText(s socketproto.RequestStatus) string {
	switch s {
	case socketproto.StatusOrphaned:
		return "agent disconnected"
	case socketproto.StatusParked:
		return "answer collected later"
	}
	return ""
}

func questionView(s *QState) QuestionView {
	qv := QuestionView{
		Question: s.Q.Question,
		Header:   s.Q.Header,
		TabLabel: tabLabel(s),
		Multi:    s.Q.IsMulti(),
		Rule:     s.Rule(),
		Optional: s.Optional(),
		NoOther:  s.NoOther(),
		Items:    s.Items(),
		Filter:   s.Filter,
		Cursor:   s.Cursor,
		Choice:   s.Choice,
		Custom:   s.Custom,
		Typing:   s.Typing,
		Notes:    s.Notes,
		Answered: s.Answered,
		Summary:  s.Summary(),
		Missing:  missing(s),
		HasWork:  s.HasWork(),
	}
	switch {
	case qv.Summary != "":
		qv.Listed = qv.Summary
	case s.Optional():
		qv.Listed = LeftEmpty
	default:
		qv.Listed = NotAnswered
	}
	if s.HasOptions() {
		qv.Checked = append([]bool(nil), s.Checked...)
	}
	for i, o := range s.Q.Options {
		ov := OptionView{Label: o.Label, Description: o.Description, Preview: o.Preview, ApprovesPreview: o.ApprovesPreview,
			PreviewLines: s.drawnPreview(i)}
		if o.ApprovesPreview {
			ov.Read = s.approvals.read[i]
			ov.ReadPercent = s.approvals.percent(i)
		}
		qv.Options = append(qv.Options, ov)
	}
	return qv
}

// tabLabel is what a question is called in a tab bar.
func tabLabel(s *QState) string {
	if s.Q.Header != "" {
		return agenttext.Clean(s.Q.Header, false)
	}
	return cut(agenttext.Clean(s.Q.Question, false), 16)
}

func agentName(r *Req) string {
	if name := r.P.Agent.DisplayName(); name != "" {
		return agenttext.Clean(name, false)
	}
	return "unknown agent"
}

// requestAbout is the agent's working directory and the request's metadata,
// as one clean line; "" when there is neither.
func requestAbout(r *Req) string {
	var parts []string
	if a := r.P.Agent; a != nil && a.Cwd != "" {
		parts = append(parts, "in "+agenttext.Clean(a.Cwd, false))
	}
	if len(r.P.Metadata) > 0 {
		var md map[string]any
		if json.Unmarshal(r.P.Metadata, &md) == nil && len(md) > 0 {
			keys := make([]string, 0, len(md))
			for k := range md {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				v, ok := md[k].(string)
				if !ok {
					b, _ := json.Marshal(md[k])
					v = string(b)
				}
				parts = append(parts, agenttext.Clean(k, false)+": "+agenttext.Clean(v, false))
			}
		}
	}
	return strings.Join(parts, " · ")
}

// Age is "just now", "3m ago", "2h ago", "4d ago".
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
}

// UntilAgeChanges is how long until Age(d) reads differently: the core's
// NextWake, so that the view's ages stay current with one timer.
func UntilAgeChanges(d time.Duration) time.Duration {
	unit := 24 * time.Hour
	switch {
	case d < 0:
		return -d
	case d < time.Hour:
		unit = time.Minute
	case d < 48*time.Hour:
		unit = time.Hour
	}
	return unit - d%unit
}

// thousands formats n as 2,847.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
