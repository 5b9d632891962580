package panecore

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"askuser/socketproto/agenttext"
)

// A notice is one of two kinds, and one rule says when it goes. A notice
// about a condition (the pending file cannot be used, the state dir cannot
// take writes) stays until the daemon sends that event's cleared form
// ("error": ""), however long that takes, and whatever else is said
// meanwhile. Any other notice is about something that happened, and goes
// after a few seconds or when the next one replaces it.

const (
	noticeTTL  = 5 * time.Second  // a notice about something that happened
	refusalTTL = 15 * time.Second // a refusal carries a reason to read
	warningTTL = 30 * time.Second // the config's warnings, said when a surface opens
)

// noticeBoard is the notices: one about something that happened, which
// goes at until, and those about conditions that last.
type noticeBoard struct {
	event      string
	until      time.Time
	conditions []condition
	now        func() time.Time
}

// condition is a notice about a condition, keyed by its event and path.
type condition struct{ key, text string }

// notice shows text about something that happened for ttl.
func (b *noticeBoard) notice(text string, ttl time.Duration) {
	b.event = text
	b.until = time.Time{}
	if text != "" {
		b.until = b.now().Add(ttl)
	}
}

// condition shows text about a condition until its cleared form (an empty
// cause) arrives; a new cause replaces the old one in place.
func (b *noticeBoard) condition(key, cause, text string) {
	i := slices.IndexFunc(b.conditions, func(c condition) bool { return c.key == key })
	switch {
	case cause == "" && i >= 0:
		b.conditions = slices.Delete(b.conditions, i, i+1)
	case cause == "":
	case i >= 0:
		b.conditions[i].text = text
	default:
		b.conditions = append(b.conditions, condition{key, text})
	}
}

// expireNotice drops a notice about something that happened once its time
// is up.
func (b *noticeBoard) expireNotice() {
	if !b.until.IsZero() && !b.now().Before(b.until) {
		b.notice("", 0)
	}
}

// notices are the conditions that hold, in the order they began, so that
// they stay where they are while the news of the moment comes and goes
// after them.
func (b *noticeBoard) notices() []Notice {
	var out []Notice
	for _, c := range b.conditions {
		out = append(out, Notice{Text: c.text, Lasting: true})
	}
	if b.event != "" && b.now().Before(b.until) {
		out = append(out, Notice{Text: b.event, Until: b.until})
	}
	return out
}

// requestName is how a notice names a request: by its first question (the
// id means nothing to the user), and how many more it had.
func requestName(r *Req) string {
	if len(r.P.Questions) == 0 {
		return "the request " + agenttext.Clean(r.P.RequestID, false)
	}
	name := "“" + cut(agenttext.Clean(r.P.Questions[0].Question, false), 48) + "”"
	if n := len(r.P.Questions) - 1; n > 0 {
		name += fmt.Sprintf(" (and %s)", plural(n, "more question"))
	}
	return name
}

func upperFirst(s string) string {
	if strings.HasPrefix(s, "the ") {
		return "The " + s[4:]
	}
	return s
}

// cut shortens clean text to at most n characters, ending with "…" when
// cut. (A face fits text to its own cells; this only keeps a name short.)
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
