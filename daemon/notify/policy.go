package notify

import (
	"container/heap"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"askuser/socketproto"
)

// Settings are the policy's times (config [notify], docs/contract.md §9).
type Settings struct {
	// Grace: a request settled within it (a rule, the agent itself) is
	// never announced.
	Grace time.Duration
	// Burst: requests that keep arriving within Grace of each other are
	// one notice, up to Burst after the first.
	Burst time.Duration
	// Idle: no notice while the user touched a pane or page within it.
	Idle time.Duration
	// Repeat: one reminder for a request unanswered this long; 0 never.
	Repeat time.Duration
}

// DefaultSettings are the policy's defaults.
var DefaultSettings = Settings{Grace: time.Second, Burst: 5 * time.Second, Idle: 60 * time.Second, Repeat: 10 * time.Minute}

// Policy decides what to announce and when. Added, Resolved and Active
// never block (the queue goroutine calls them); Run does the deciding in
// its own goroutine and wakes only for a deadline that exists: with nothing
// waiting it has no timer at all.
type Policy struct {
	set     Settings
	log     *slog.Logger
	workers []*worker

	mu     sync.Mutex
	events []event
	signal chan struct{}
	// asleep: Run waits with no look at the events due (under mu); then
	// every event signals it. Otherwise Run is at work, or it looks again
	// within coalesce, and only an event that cannot wait that long
	// signals it (urgent): a stream of requests wakes it once per
	// coalesce, not once per change (each wake is a thread woken on a CPU
	// that the agents waiting on the daemon want).
	asleep bool
	// shown: the requests a notice shows (under mu), whose resolution
	// closes that notice at once; quickGrace: the grace is shorter than
	// coalesce, so a new request may be due at once.
	shown      map[string]bool
	quickGrace bool

	lastActive atomic.Int64 // unix nanoseconds of the user's last key or tap

	// Run's own state.
	waiting map[string]*entry
	reminds reminders // the waiting entries with a reminder to come, soonest first
	seq     uint64
	fresh   []string // added, not yet announced nor passed over
	first   time.Time
	last    time.Time
	notices map[string]*notice
	changed []*notice // lost a request in this round: shown again once, after it
}

type event struct {
	at       time.Time // when it happened: Run may take it up to coalesce later
	settings *Settings
	added    *socketproto.Pending
	restored *socketproto.Pending
	resolved *socketproto.RequestResolved
}

type entry struct {
	p        socketproto.Pending
	seq      uint64    // order of arrival
	fresh    bool      // in Policy.fresh
	remindAt time.Time // when in Policy.reminds
	heapAt   int       // its index there; -1 when not in it
	notice   *notice
}

type notice struct {
	tag     string
	ids     []string
	changed bool
}

// New makes a policy that tells notifiers.
func New(set Settings, log *slog.Logger, notifiers ...Notifier) *Policy {
	p := &Policy{set: set, log: log, signal: make(chan struct{}, 1),
		waiting: map[string]*entry{}, notices: map[string]*notice{},
		shown: map[string]bool{}, quickGrace: set.Grace < coalesce}
	for _, n := range notifiers {
		p.workers = append(p.workers, &worker{n: n, log: log, signal: make(chan struct{}, 1)})
	}
	return p
}

// Set changes the policy's times (config.toml edited while the daemon
// runs): from now on for what is decided now, a reminder already set
// keeps its time.
func (p *Policy) Set(s Settings) { p.post(event{settings: &s}) }

// Added: request r started waiting.
func (p *Policy) Added(r socketproto.Pending) { p.post(event{added: &r}) }

// Restored: r was waiting before the daemon restarted. It may have been
// announced then, under its own id (the tag of a notice of one request), so
// its resolution closes that; it is not announced again, but reminded.
func (p *Policy) Restored(r socketproto.Pending) { p.post(event{restored: &r}) }

// Resolved: a request was answered, declined or withdrawn.
func (p *Policy) Resolved(e socketproto.RequestResolved) { p.post(event{resolved: &e}) }

// Active: the user pressed a key or tapped on a pane or page at t.
func (p *Policy) Active(t time.Time) {
	for {
		old := p.lastActive.Load()
		if t.UnixNano() <= old || p.lastActive.CompareAndSwap(old, t.UnixNano()) {
			return
		}
	}
}

// coalesce is how late Run may take up an event while events keep coming:
// far below anything a person notices, and the event keeps its own time.
const coalesce = 20 * time.Millisecond

// maxUntaken bounds the events that wait for Run's next look.
const maxUntaken = 4096

func (p *Policy) post(e event) {
	e.at = time.Now()
	p.mu.Lock()
	p.events = append(p.events, e)
	wake := p.asleep || p.urgent(e) || len(p.events) >= maxUntaken
	p.asleep = false
	p.mu.Unlock()
	if wake {
		select {
		case p.signal <- struct{}{}:
		default:
		}
	}
}

// urgent reports whether e must be taken up at once rather than at Run's
// next look (p.mu held): the end of a request a notice shows (the notice
// goes from every device), a new request when the grace is shorter than
// coalesce, new settings. Any other event's effect is at least coalesce
// away, and it keeps the time it happened.
func (p *Policy) urgent(e event) bool {
	switch {
	case e.resolved != nil:
		return p.shown[e.resolved.RequestID]
	case e.added != nil:
		return p.quickGrace
	default:
		return e.settings != nil
	}
}

// show records that n shows en's request.
func (p *Policy) show(en *entry, n *notice) {
	en.notice = n
	p.mu.Lock()
	p.shown[en.p.RequestID] = true
	p.mu.Unlock()
}

// Run decides until ctx ends; every notifier's goroutine is started and
// stopped with it.
func (p *Policy) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for _, w := range p.workers {
		wg.Go(func() { w.run(ctx) })
	}
	defer wg.Wait()
	var timer *time.Timer
	var timerC <-chan time.Time
	for {
		p.mu.Lock()
		events := p.events
		p.events = nil
		p.asleep = false
		p.mu.Unlock()
		now := time.Now()
		for _, e := range events {
			p.take(e)
		}
		// A burst that loses many requests at once is shown again once.
		for _, n := range p.changed {
			if n.changed && len(n.ids) > 0 {
				p.announce(n, KindUpdate)
			}
			n.changed = false
		}
		p.changed = p.changed[:0]
		p.fire(now)
		if timer != nil {
			timer.Stop()
			timer, timerC = nil, nil
		}
		at, ok := p.next()
		if look := now.Add(coalesce); len(events) > 0 && (!ok || look.Before(at)) {
			// More may follow: look again soon rather than be woken
			// for each.
			at, ok = look, true
		}
		p.mu.Lock()
		more := len(p.events) > 0
		p.asleep = !more && len(events) == 0 // else it looks again within coalesce
		p.mu.Unlock()
		if more {
			continue
		}
		if ok {
			timer = time.NewTimer(time.Until(at))
			timerC = timer.C
		}
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case <-p.signal:
		case <-timerC:
			timer, timerC = nil, nil
		}
	}
}

func (p *Policy) take(e event) {
	now := e.at
	switch {
	case e.settings != nil:
		p.set = *e.settings
		p.mu.Lock()
		p.quickGrace = p.set.Grace < coalesce
		p.mu.Unlock()
	case e.added != nil:
		r := *e.added
		if _, dup := p.waiting[r.RequestID]; dup {
			return
		}
		p.seq++
		en := &entry{p: r, seq: p.seq, fresh: true, heapAt: -1}
		if p.set.Repeat > 0 {
			en.remindAt = now.Add(p.set.Repeat)
			heap.Push(&p.reminds, en)
		}
		p.waiting[r.RequestID] = en
		if len(p.fresh) == 0 {
			p.first = now
		}
		p.fresh = append(p.fresh, r.RequestID)
		p.last = now
	case e.restored != nil:
		r := *e.restored
		if _, dup := p.waiting[r.RequestID]; dup {
			return
		}
		p.seq++
		en := &entry{p: r, seq: p.seq, heapAt: -1}
		// Its reminder, if not due before the restart (when it was given,
		// or lost with the daemon: one reminder, never two).
		if at := r.CreatedAt.Add(p.set.Repeat); p.set.Repeat > 0 && at.After(now) {
			en.remindAt = at
			heap.Push(&p.reminds, en)
		}
		n := &notice{tag: r.RequestID, ids: []string{r.RequestID}}
		if p.notices[n.tag] == nil {
			p.notices[n.tag] = n
			p.show(en, n)
		}
		p.waiting[r.RequestID] = en
	case e.resolved != nil:
		p.gone(*e.resolved)
	}
}

func (p *Policy) gone(e socketproto.RequestResolved) {
	en, ok := p.waiting[e.RequestID]
	if !ok {
		return
	}
	delete(p.waiting, e.RequestID)
	p.mu.Lock()
	delete(p.shown, e.RequestID)
	p.mu.Unlock()
	if en.heapAt >= 0 {
		heap.Remove(&p.reminds, en.heapAt)
	}
	if en.fresh {
		p.fresh = remove(p.fresh, e.RequestID) // settled within the grace: never announced
	}
	n := en.notice
	if n == nil {
		return
	}
	n.ids = remove(n.ids, e.RequestID)
	if len(n.ids) == 0 {
		delete(p.notices, n.tag)
		g := Gone{Tag: n.tag, RequestID: e.RequestID, Outcome: e.Outcome, Via: e.Via, Waiting: len(p.waiting)}
		p.each(func(ctx context.Context, nf Notifier) { nf.Withdraw(ctx, g) })
		return
	}
	if !n.changed {
		n.changed = true
		p.changed = append(p.changed, n)
	}
}

// active reports whether the user is at a pane or page now.
func (p *Policy) active(now time.Time) (bool, time.Time) {
	last := time.Unix(0, p.lastActive.Load())
	return p.lastActive.Load() != 0 && now.Sub(last) < p.set.Idle, last
}

// fire does what is due at now.
func (p *Policy) fire(now time.Time) {
	active, last := p.active(now)
	if len(p.fresh) > 0 && !now.Before(p.burstAt()) {
		ids := p.fresh
		p.fresh = nil
		for _, id := range ids {
			p.waiting[id].fresh = false
		}
		if !active {
			n := &notice{tag: ids[0], ids: ids}
			p.notices[n.tag] = n
			for _, id := range ids {
				p.show(p.waiting[id], n)
			}
			p.announce(n, KindNew)
		}
		// Seen at the pane: no notice; the reminder still comes.
	}
	var due []string
	for len(p.reminds) > 0 && !now.Before(p.reminds[0].remindAt) {
		en := p.reminds[0]
		if active || en.fresh {
			// Again when the user has gone (or the burst is out).
			en.remindAt = last.Add(p.set.Idle)
			if en.fresh {
				en.remindAt = p.burstAt()
			}
			heap.Fix(&p.reminds, 0)
			continue
		}
		heap.Pop(&p.reminds)
		due = append(due, en.p.RequestID)
	}
	if len(due) == 0 {
		return
	}
	// A request already announced is reminded by its own notice again, so
	// that no device shows it twice; the others make one new notice.
	var unannounced []string
	reminded := map[*notice]bool{}
	for _, id := range due {
		if n := p.waiting[id].notice; n != nil {
			if !reminded[n] {
				reminded[n] = true
				p.announce(n, KindReminder)
			}
			continue
		}
		unannounced = append(unannounced, id)
	}
	if len(unannounced) > 0 {
		n := &notice{tag: unannounced[0], ids: unannounced}
		p.notices[n.tag] = n
		for _, id := range unannounced {
			p.show(p.waiting[id], n)
		}
		p.announce(n, KindReminder)
	}
}

func (p *Policy) burstAt() time.Time {
	at := p.last.Add(p.set.Grace)
	if limit := p.first.Add(p.set.Burst); limit.Before(at) {
		at = limit
	}
	return at
}

// next is the earliest deadline, if any.
func (p *Policy) next() (time.Time, bool) {
	var at time.Time
	ok := false
	consider := func(t time.Time) {
		if !ok || t.Before(at) {
			at, ok = t, true
		}
	}
	if len(p.fresh) > 0 {
		consider(p.burstAt())
	}
	if len(p.reminds) > 0 {
		consider(p.reminds[0].remindAt)
	}
	return at, ok
}

func (p *Policy) announce(n *notice, kind Kind) {
	out := Notice{Tag: n.tag, Kind: kind, Waiting: len(p.waiting)}
	for _, id := range n.ids {
		out.Requests = append(out.Requests, p.waiting[id].p)
	}
	p.each(func(ctx context.Context, nf Notifier) { nf.Announce(ctx, out) })
}

func (p *Policy) each(call func(context.Context, Notifier)) {
	for _, w := range p.workers {
		w.push(func(ctx context.Context) { call(ctx, w.n) })
	}
}

func remove(ids []string, id string) []string {
	for i, x := range ids {
		if x == id {
			return append(ids[:i:i], ids[i+1:]...)
		}
	}
	return ids
}

// reminders is a min-heap of entries by remindAt, then arrival.
type reminders []*entry

func (h reminders) Len() int { return len(h) }
func (h reminders) Less(i, j int) bool {
	if !h[i].remindAt.Equal(h[j].remindAt) {
		return h[i].remindAt.Before(h[j].remindAt)
	}
	return h[i].seq < h[j].seq
}
func (h reminders) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapAt, h[j].heapAt = i, j
}
func (h *reminders) Push(x any) {
	en := x.(*entry)
	en.heapAt = len(*h)
	*h = append(*h, en)
}
func (h *reminders) Pop() any {
	old := *h
	en := old[len(old)-1]
	old[len(old)-1] = nil
	en.heapAt = -1
	*h = old[:len(old)-1]
	return en
}
