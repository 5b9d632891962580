package notify

import (
	"errors"
	"net/url"
	"strings"
)

// A notifier's address is a capability: a Web Push endpoint's path names
// the device to whoever can post to it, an ntfy topic is read by whoever
// knows its name. Logs are kept, copied and pasted into bug reports, so
// they say the address by its origin only (docs/contract.md §4).

// Origin is what a log says of target: its scheme and host, "?" when it
// is not a URL.
func Origin(target string) string {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return "?"
	}
	return u.Scheme + "://" + u.Host
}

// ErrorText is err as a log says it when it came of a request to target:
// the URL an HTTP client's error names is cut to its origin, and target,
// its path and its query are cut from whatever else the error says.
func ErrorText(err error, target string) string {
	if err == nil {
		return ""
	}
	var ue *url.Error
	var msg string
	if errors.As(err, &ue) {
		msg = ue.Op + " " + Origin(ue.URL) + ": " + ue.Err.Error()
	} else {
		msg = err.Error()
	}
	return Redact(msg, target)
}

// Redact is msg without target, its path or its query, in any spelling
// url.URL gives them, each replaced by the origin or "…".
func Redact(msg, target string) string {
	if target == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, target, Origin(target))
	u, err := url.Parse(target)
	if err != nil {
		return msg
	}
	msg = strings.ReplaceAll(msg, u.String(), Origin(target))
	for _, s := range []string{u.EscapedPath(), u.Path, u.RawQuery, u.Query().Encode()} {
		if len(s) > 1 { // a lone "/" says nothing
			msg = strings.ReplaceAll(msg, s, "…")
		}
	}
	return msg
}
