package webdevices

import (
	"fmt"
	"strings"
	"time"
)

// Name is a device's first name, from its browser's user agent: "iPhone
// Safari", "Android Chrome", "Firefox on Linux". The user may rename it.
func Name(ua string) string {
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(ua, x) {
				return true
			}
		}
		return false
	}
	browser := ""
	switch {
	case has("HeadlessChrome"):
		browser = "Headless Chrome"
	case has("Edg/", "EdgA/", "EdgiOS/"):
		browser = "Edge"
	case has("OPR/", "Opera"):
		browser = "Opera"
	case has("SamsungBrowser/"):
		browser = "Samsung Internet"
	case has("Firefox/", "FxiOS/"):
		browser = "Firefox"
	case has("CriOS/", "Chrome/", "Chromium/"):
		browser = "Chrome"
	case has("Safari/"):
		browser = "Safari"
	case strings.HasPrefix(ua, "curl/"):
		return "curl"
	}
	system, mobile := "", false
	switch {
	case has("iPhone"):
		system, mobile = "iPhone", true
	case has("iPad"):
		system, mobile = "iPad", true
	case has("Android"):
		system, mobile = "Android", true
	case has("CrOS"):
		system = "ChromeOS"
	case has("Macintosh", "Mac OS X"):
		system = "Mac"
	case has("Windows"):
		system = "Windows"
	case has("Linux", "X11"):
		system = "Linux"
	}
	switch {
	case browser == "" && system == "":
		return "Unknown browser"
	case browser == "":
		return "A browser on " + system
	case system == "":
		return browser
	case mobile:
		return system + " " + browser
	}
	return browser + " on " + system
}

// Ago says how long ago t was, as the surfaces show it: "just now", "4 min
// ago", "3 h ago", "2 days ago".
func Ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "never"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
}

// Details is the line under a device's name on every surface.
func Details(d Device, now time.Time) string {
	s := "paired " + Ago(d.Paired, now) + " · last seen " + Ago(d.LastSeen, now)
	if d.Push != "" {
		s += " · notified by Web Push"
	}
	return s
}
