package webpane

import (
	"time"

	"askuser/socketproto"
)

// FrameJS defines frame() for a page script: a promise of the next frame
// drawn, so that a script's step is seen by the page before the next.
const FrameJS = `const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));`

// ReadApproval reads the approving preview as a user does: from its top to
// its end, a screenful at a time (what the sticky header and button bar
// leave of it), each step seen by the page before the next.
func (b *Browser) ReadApproval() {
	b.t.Helper()
	JSValue[bool](b, `(async () => { `+FrameJS+`
		const view = () => { const top = document.getElementById('top').getBoundingClientRect().bottom;
			const bar = document.querySelector('.question > .actions');
			const bottom = bar && getComputedStyle(bar).position === 'sticky' ? bar.getBoundingClientRect().top : innerHeight;
			return [top, bottom]; };
		let p = document.querySelector('pre[data-approves]');
		window.scrollBy(0, p.getBoundingClientRect().top - view()[0]);
		await frame();
		for (let i = 0; i < 1000; i++) {
			p = document.querySelector('pre[data-approves]');
			const [top, bottom] = view();
			if (p.getBoundingClientRect().bottom <= bottom) break;
			window.scrollBy(0, bottom - top - 40);
			await frame();
		}
		await frame();
		return true; })()`)
}

// Result waits for the answer to a question asked on the socket, failing
// with what the page shows if none comes.
func (b *Browser) Result(res <-chan socketproto.Response) socketproto.Response {
	b.t.Helper()
	select {
	case r := <-res:
		return r
	case <-time.After(30 * time.Second):
		b.t.Fatalf("no answer came; the page shows:\n%s", b.TextNow())
		return socketproto.Response{}
	}
}
