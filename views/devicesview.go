package views

import (
	"fmt"

	"askuser/internal/webdevices"
)

// The Devices view (docs/contract.md §12): the browsers and phones logged
// in to the web pane, read from the state dir's devices file
// (internal/webdevices) when the view opens and after each change; x
// revokes the one under the cursor by writing that file, which a running
// `askuserd web` follows (the device is logged out within a second, the
// others stay), and asks the daemon to drop its Web Push subscription. The
// pane reaches the web pane only through that file: the terminal is the
// user's own, as the CLI is.

type devicesList struct {
	list    []webdevices.Device
	problem string // why the file could not be read or changed
	word    string // what the last revoke did
	cursor  int
}

func (p *Pane) openDevices() {
	p.devices = &devicesList{}
	p.loadDevices()
}

func (p *Pane) loadDevices() {
	devs, err := p.opt.Devices.List()
	p.devices.list, p.devices.problem = devs, ""
	if err != nil {
		p.devices.problem = err.Error()
	}
}

// revokeDevice revokes the device under the cursor.
func (p *Pane) revokeDevice() {
	d := p.devices
	if d == nil || d.cursor < 0 || d.cursor >= len(d.list) {
		return
	}
	gone, err := p.opt.Devices.Revoke(d.list[d.cursor].ID)
	if err != nil {
		p.loadDevices()
		d.problem = err.Error()
		return
	}
	d.word = fmt.Sprintf("Revoked %s: it is logged out of the web pane; the others stay.", gone.Name)
	if gone.Push != "" && p.opt.Unsubscribe != nil {
		if err := p.opt.Unsubscribe(gone.Push); err != nil {
			d.word += " Its Web Push subscription was not dropped: " + err.Error()
		} else {
			d.word += " Its Web Push stopped."
		}
	}
	p.loadDevices()
}

// layOutDevices lays out the Devices view, and returns the cursor kept on
// a device.
func (p *Pane) layOutDevices(cv *canvas, x, y, w, bottom int) (cursor int) {
	d := p.devices
	cursor = d.cursor
	cv.put(x, y, w, seg{"Devices logged in to the web pane (askuserd web)", styleStrong})
	y++
	for _, s := range []string{d.problem, d.word} {
		if s == "" {
			continue
		}
		for _, l := range wrapAtMost(Clean(s, false), max(1, w), 3) {
			cv.put(x, y, w, seg{l, styleStrong})
			y++
		}
	}
	if len(d.list) == 0 {
		cv.put(x, y+1, w, seg{"No devices. `askuserd web --url` prints a pairing link for one.", stylePlain})
		return cursor
	}
	cursor = min(max(cursor, 0), len(d.list)-1)
	y++
	now := p.opt.Now()
	for i, dev := range d.list {
		if y+1 >= bottom {
			cv.put(x, bottom-1, w, seg{fmt.Sprintf("↓ %d more…", len(d.list)-i), styleQuiet})
			return cursor
		}
		style := stylePlain
		if i == cursor {
			style = styleFocus
		}
		cv.put(x, y, w, seg{dev.ID + "  " + Clean(dev.Name, false), style})
		cv.put(x+3, y+1, w-3, seg{webdevices.Details(dev, now), styleQuiet})
		y += 2
	}
	return cursor
}

func devicesListed(p *Pane, _ keyCtx) bool { return p.devices != nil && len(p.devices.list) > 0 }
