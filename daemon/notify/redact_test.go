package notify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://fcm.googleapis.com/fcm/send/abc:def":              "https://fcm.googleapis.com",
		"https://user:pw@push.example:8443/x?auth=abc":             "https://push.example:8443",
		"http://127.0.0.1:4000/push/phone/cap":                     "http://127.0.0.1:4000",
		"not a url":                                                "?",
		"https://updates.push.services.mozilla.com/wpush/v2/gAAAA": "https://updates.push.services.mozilla.com",
	} {
		if got := Origin(in); got != want {
			t.Errorf("Origin(%q) = %q, want %q", in, got, want)
		}
	}
}

// An error of a request to a capability URL says its origin only, however
// the error spells the URL.
func TestErrorTextHidesTheCapability(t *testing.T) {
	const target = "http://127.0.0.1:1/push/phone/c%41p-tok?topic=sec ret"
	_, doErr := http.DefaultClient.Do(mustRequest(t, target))
	_, parseErr := http.NewRequest(http.MethodPost, target+"\x7f", nil)
	for _, err := range []error{
		doErr,
		parseErr,
		fmt.Errorf("sending: %w", doErr),
		errors.New("refused " + target),
		errors.New("refused /push/phone/cAp-tok"),
		context.Canceled,
	} {
		got := ErrorText(err, target)
		for _, s := range []string{"push/phone", "cAp-tok", "c%41p", "sec ret", "sec+ret", "topic="} {
			if strings.Contains(got, s) {
				t.Errorf("ErrorText(%q) = %q, which names %q", err, got, s)
			}
		}
	}
}

func mustRequest(t *testing.T, target string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
