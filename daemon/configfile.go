package daemon

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsnotify/fsnotify"

	"askuser/internal/config"
	"askuser/socketproto"
)

// Following config.toml while the daemon runs (docs/contract.md §9): a
// saved change is read again; what can change live (config.Live: rules,
// ui, the notification times, the limits but the line size) applies at
// once, what the daemon built at start waits for a restart and is said
// (status, a config_changed event the panes show), and a file that does
// not load is refused whole: the daemon keeps its last good config and
// says why, as it says a pending file's trouble.

// followConfig watches the directory of opts.ConfigFile (editors save by
// renaming a new file over the old one) and hands each new reading to the
// queue. Without a directory to watch it says so and follows nothing.
func (d *server) followConfig(ctx context.Context) {
	path := d.opts.ConfigFile
	if path == "" {
		return
	}
	w, err := fsnotify.NewWatcher()
	if err == nil {
		err = w.Add(filepath.Dir(path))
	}
	if err != nil {
		d.log.Warn("config: not followed; a change takes effect at the next start", "path", path, "err", err)
		if w != nil {
			w.Close()
		}
		return
	}
	d.wg.Go(func() {
		defer w.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Clean(ev.Name) != filepath.Clean(path) || ev.Op == fsnotify.Chmod {
					continue
				}
				cfg, err := config.Load(path)
				if errors.Is(err, fs.ErrNotExist) {
					// Removed (or in the middle of an editor's save; its
					// rename follows): the defaults, as at a start
					// without a file.
					cfg, err = config.Default(), nil
				}
				if !d.q.do(func(s *state) { s.configEdited(cfg, err) }) {
					return
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				d.log.Warn("config: watching it", "path", path, "err", err)
			}
		}
	})
}

// configEdited takes a new reading of config.toml: refused, it is said and
// the running config stays; loaded, its live keys apply and the others
// are listed until a restart.
func (s *state) configEdited(cfg config.Config, err error) {
	path := s.opts.ConfigFile
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "config "+path+": ")
		if msg != s.configs.trouble {
			s.configs.trouble = msg
			s.log.Warn("config: refused; the daemon keeps its last good config", "path", path, "err", msg)
			s.broadcast(s.configChanged())
		}
		return
	}
	for _, w := range cfg.Warnings {
		s.log.Warn(w)
	}
	had := s.configs.trouble != ""
	s.configs.trouble = ""
	running := s.opts.Config
	var live, restart []string
	for _, key := range config.Changed(running, cfg) {
		if config.Live(key) {
			live = append(live, key)
		}
	}
	for _, key := range config.Changed(s.configs.started, cfg) {
		if !config.Live(key) {
			restart = append(restart, key)
		}
	}
	next := running
	next.Rules, next.UI = cfg.Rules, cfg.UI
	next.Notify.Idle, next.Notify.Grace, next.Notify.Repeat = cfg.Notify.Idle, cfg.Notify.Grace, cfg.Notify.Repeat
	lineSize := running.Limits.MaxMessageBytes
	next.Limits = cfg.Limits
	next.Limits.MaxMessageBytes = lineSize
	next.Path, next.Warnings = cfg.Path, cfg.Warnings
	s.opts.Config = next
	s.limits = next.Limits
	if s.configs.notify != nil && slices.ContainsFunc(live, func(k string) bool { return strings.HasPrefix(k, "notify.") }) {
		s.configs.notify(next.Notify)
	}
	if len(live) > 0 {
		s.log.Info("config: applied", "path", path, "keys", strings.Join(live, " "))
	}
	changedRestart := !slices.Equal(restart, s.configs.restart)
	s.configs.restart = restart
	if len(restart) > 0 && changedRestart {
		s.log.Warn("config: these take effect when askuserd restarts", "path", path, "keys", strings.Join(restart, " "))
	}
	if had || changedRestart {
		s.broadcast(s.configChanged())
	}
}

// configChanged is what subscribers are told of config.toml now.
func (s *state) configChanged() socketproto.ConfigChanged {
	return socketproto.ConfigChanged{Path: s.opts.ConfigFile, Error: s.configs.trouble, Restart: s.configs.restart}
}

// configFollowing is the queue's part of following config.toml.
type configFollowing struct {
	// started is the config the daemon started with: what a restart
	// would change is measured from it.
	started config.Config
	trouble string   // why the last reading was refused; "" when it loaded
	restart []string // keys changed since the start that wait for a restart
	// notify is told the new notification times (the policy's Set).
	notify func(config.Notify)
}
