package daemon

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"time"

	"askuser/daemon/notify"
	"askuser/daemon/notify/ntfy"
	"askuser/daemon/notify/webpush"
	"askuser/internal/config"
	"askuser/socketproto"
)

// startNotifier starts the notification policy (daemon/notify) with its
// notifiers: notify.command, notify.ntfy, and Web Push to the devices the
// web page subscribed. The queue tells it of every request added and
// resolved (a follower) and of the user's activity; it never waits for it.
func startNotifier(ctx context.Context, h host) error {
	cfg := h.opts.Config
	var notifiers []notify.Notifier
	if len(cfg.Notify.Command) > 0 {
		notifiers = append(notifiers, &notify.Command{Argv: cfg.Notify.Command, Log: h.log})
	}
	if cfg.Notify.Ntfy != "" {
		notifiers = append(notifiers, &ntfy.Notifier{Topic: cfg.Notify.Ntfy, Token: cfg.Notify.NtfyToken, Page: webPage(cfg.Web.PublicURL, cfg.Web.Listen), Log: h.log})
	}
	contact := func() (string, error) { return webpush.Contact(cfg.Web, cfg.StateDir()) }
	store, err := webpush.Open(cfg.StateDir(), cfg.Web.PushInsecureLoopback)
	if err != nil {
		// Push is lost, not the daemon: the other notifiers and every
		// surface go on.
		h.log.Warn("web push: cannot read the subscriptions; no push this run", "err", err)
		store = nil
		path := filepath.Join(cfg.StateDir(), webpush.SubscriptionsFile)
		h.queue.do(func(q extensionAPI) { q.fileError(path, err.Error()+"; Web Push is off until askuserd restarts") })
	} else {
		notifiers = append(notifiers, &webpush.Sender{Store: store, Log: h.log, Contact: contact})
	}
	p := notify.New(notifySettings(cfg.Notify), h.log, notifiers...)
	if !h.queue.do(func(q extensionAPI) {
		for _, r := range q.pendingList() {
			p.Restored(r)
		}
		q.followAfterSends(policyFollower{p})
		q.onActivity(p.Active)
		q.onNotifySettings(func(n config.Notify) { p.Set(notifySettings(n)) })
		if store != nil {
			q.servePush(store, contact)
		}
	}) {
		return nil // the queue stopped before it started
	}
	h.wg.Go(func() { p.Run(ctx) })
	return nil
}

// policyFollower hands the queue's changes to the policy, without blocking.
type policyFollower struct{ p *notify.Policy }

func (f policyFollower) added(p socketproto.Pending)            { f.p.Added(p) }
func (f policyFollower) updated(socketproto.Pending)            {}
func (f policyFollower) resolved(e socketproto.RequestResolved) { f.p.Resolved(e) }

// pushService is the Web Push store as the handlers use it.
type pushService interface {
	PublicKey() (string, error)
	Subscribe(raw []byte) error
	Unsubscribe(endpoint string) (bool, error)
}

func (s *state) onActivity(f func(time.Time)) { s.activity = f }

func (s *state) onNotifySettings(f func(config.Notify)) { s.configs.notify = f }

// notifySettings is the policy's times from config.toml's [notify].
func notifySettings(n config.Notify) notify.Settings {
	return notify.Settings{Grace: n.Grace.Duration, Burst: notify.DefaultSettings.Burst, Idle: n.Idle.Duration, Repeat: n.Repeat.Duration}
}
func (s *state) servePush(p pushService, contact func() (string, error)) {
	s.push, s.pushContact = p, contact
}

// pushRefused is why a device may not subscribe now, or nil: push is off,
// or no contact is known that the push services accept (a subscription
// that could never receive anything is refused where the user can act).
func (s *state) pushRefused() *socketproto.Error {
	if s.push == nil {
		return socketproto.Errf(socketproto.CodeStateUnavailable, "", "web push is off: the daemon could not read its subscriptions (see its log)")
	}
	if _, err := s.pushContact(); err != nil {
		return socketproto.Errf(socketproto.CodeInvalidRequest, "web.push_contact", "%v", err)
	}
	return nil
}

// The handlers of activity and the push messages (docs/contract.md §4
// "Activity and Web Push"). Subscribing is rare and writes one small file,
// as the journal writes its own: done here, so that the replies keep the
// order of the messages.
func (s *state) handleActivity() {
	if s.activity != nil {
		s.activity(time.Now())
	}
}

func (s *state) pushKey(c *conn) {
	if e := s.pushRefused(); e != nil {
		s.send(c, e)
		return
	}
	key, err := s.push.PublicKey()
	if err != nil {
		s.send(c, socketproto.Errf(socketproto.CodeStateUnavailable, "", "web push: %v", err))
		return
	}
	s.send(c, socketproto.PushKey{PublicKey: key})
}

func (s *state) pushSubscribe(c *conn, m socketproto.PushSubscribe) {
	if e := s.pushRefused(); e != nil {
		s.send(c, e)
		return
	}
	if err := s.push.Subscribe(m.Subscription); err != nil {
		var fe *webpush.FieldError
		if errors.As(err, &fe) {
			s.send(c, socketproto.Errf(socketproto.CodeInvalidRequest, fe.Field, "%s", fe.Rule))
		} else {
			s.send(c, socketproto.Errf(socketproto.CodeStateUnavailable, "", "web push: %v", err))
		}
		return
	}
	s.send(c, socketproto.OK{})
}

func (s *state) pushUnsubscribe(c *conn, m socketproto.PushUnsubscribe) {
	if s.push == nil {
		s.send(c, socketproto.Errf(socketproto.CodeNotFound, "endpoint", "no such subscription"))
		return
	}
	found, err := s.push.Unsubscribe(m.Endpoint)
	switch {
	case err != nil:
		s.send(c, socketproto.Errf(socketproto.CodeStateUnavailable, "", "web push: %v", err))
	case !found:
		s.send(c, socketproto.Errf(socketproto.CodeNotFound, "endpoint", "no such subscription"))
	default:
		s.send(c, socketproto.OK{})
	}
}

// webPage is the page's address for a click URL: web.public_url, else
// web.listen over http (which only this machine reaches).
func webPage(public, listen string) string {
	if public != "" {
		return public
	}
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return ""
	}
	return "http://" + listen
}
