package askuserd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"askuser/cmd/internal/command"
	"askuser/internal/atomicfile"
	"askuser/internal/config"
	"askuser/internal/webdevices"
	"askuser/socketproto"
	"askuser/views/web"
)

// `askuserd web devices`: the devices logged in to the web pane, from the
// state dir's devices file (internal/webdevices), which a running
// `askuserd web` follows: a device revoked here is logged out there within
// a second, the others staying.
func runDevices(args []string, cfg *config.Config, socket string, s command.Streams) error {
	store := &webdevices.Store{Dir: cfg.StateDir()}
	switch {
	case len(args) == 1 && args[0] == "devices":
		devs, err := store.List()
		if err != nil {
			return err
		}
		if len(devs) == 0 {
			fmt.Fprintln(s.Out, "No devices. `askuserd web --url` prints a pairing link for one.")
			return nil
		}
		now := time.Now()
		tw := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tPAIRED\tLAST SEEN\tWEB PUSH")
		for _, d := range devs {
			push := "-"
			if d.Push != "" {
				push = "yes"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.ID, d.Name, webdevices.Ago(d.Paired, now), webdevices.Ago(d.LastSeen, now), push)
		}
		return tw.Flush()
	case len(args) == 3 && args[0] == "devices" && args[1] == "revoke":
		d, err := store.Revoke(args[2])
		if err != nil {
			return notFound(err)
		}
		fmt.Fprintf(s.Out, "Revoked %s (%s): it is logged out; the other devices stay.\n", d.ID, d.Name)
		unsubscribeDevices(socket, cfg.Limits.MaxMessageBytes, []webdevices.Device{d}, s)
		return nil
	case len(args) >= 4 && args[0] == "devices" && args[1] == "rename":
		d, err := store.Rename(args[2], strings.Join(args[3:], " "))
		if err != nil {
			return notFound(err)
		}
		fmt.Fprintf(s.Out, "Device %s is now %q.\n", d.ID, d.Name)
		return nil
	}
	return command.Usagef("unknown arguments %q: askuserd web devices, askuserd web devices revoke ID, or askuserd web devices rename ID NAME", strings.Join(args, " "))
}

func notFound(err error) error {
	if errors.Is(err, webdevices.ErrNoDevice) {
		return command.Usagef("%v", err)
	}
	return err
}

// unsubscribeDevices asks the daemon to drop the Web Push subscriptions of
// devices revoked; a daemon that is not running is told to no one, and
// says why.
func unsubscribeDevices(socket string, maxBytes int, devs []webdevices.Device, s command.Streams) {
	for _, d := range devs {
		if d.Push == "" {
			continue
		}
		if err := unsubscribe(socket, maxBytes, d.Push); err != nil {
			fmt.Fprintf(s.Err, "askuserd web: %s's Web Push subscription was not dropped (%v); it is dropped when its push service refuses a push\n", d.Name, err)
			continue
		}
		fmt.Fprintf(s.Out, "%s's Web Push subscription was dropped.\n", d.Name)
	}
}

func unsubscribe(socket string, maxBytes int, endpoint string) error {
	c, err := socketproto.Dial(socket, maxBytes)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.NetConn().SetDeadline(time.Now().Add(10 * time.Second))
	if err := c.Send(socketproto.PushUnsubscribe{Endpoint: endpoint}); err != nil {
		return err
	}
	m, err := c.Recv()
	var pe *socketproto.Error
	if !errors.As(err, &pe) {
		if err != nil {
			return err
		}
		pe, _ = m.(*socketproto.Error)
	}
	if pe != nil && pe.Code != socketproto.CodeNotFound {
		return pe
	}
	return nil
}

// runRotate is `askuserd web --rotate`: a new secret, which ends every
// session, and every device forgotten (their Web Push too).
func runRotate(secretPath string, cfg *config.Config, socket string, s command.Streams) error {
	if _, err := web.RotateSecret(secretPath); err != nil {
		return err
	}
	gone, err := (&webdevices.Store{Dir: filepath.Dir(secretPath)}).Clear()
	if err != nil && !errors.Is(err, atomicfile.ErrNotSynced) {
		fmt.Fprintf(s.Err, "askuserd web: the devices were not forgotten (%v); they are logged out all the same\n", err)
	}
	fmt.Fprintln(s.Out, "New secret made: every device is logged out. `askuserd web --url` prints a new pairing link.")
	unsubscribeDevices(socket, cfg.Limits.MaxMessageBytes, gone, s)
	return nil
}
