package daemon

import (
	"container/list"
	"context"
	"log/slog"
	"sync"
	"time"

	"askuser/socketproto"
)

// queue owns the daemon's state. One goroutine at a time touches it: the
// one holding steps. Connections, timers and extensions hand it functions to
// run (post), so no other lock guards any of the maps below.
//
// The queue goroutine (run) runs what is posted. A connection's reader runs
// it itself when no one else is (postAndRun): its line then goes from the
// socket to the reply without waking another goroutine, which on a machine
// of two CPUs took as long as everything else the daemon does for an answer.
// Either way the steps run in the order they were posted, in groups. "The
// queue goroutine", here and in the rest of the package, is whichever
// goroutine holds steps.
type queue struct {
	steps sync.Mutex // held while running steps: the state's owner

	mu      sync.Mutex     // guards inbox and stopped
	inbox   []func(*state) // posted, not run yet, oldest first
	stopped bool           // run returned: nothing more runs
	kick    chan struct{}  // the queue goroutine has steps to run
	room    *sync.Cond     // on mu: the inbox was emptied some, or the queue stopped

	done chan struct{} // closed when run returns
	st   *state
	// stepped, if set, is told of each group of steps (memreturn.go).
	stepped func()
}

// request is one pending request and who waits for it.
type request struct {
	// p is what panes, lists and the pending file see. Its slices are never
	// modified in place (a new Draft replaces the old one), so a copy of p
	// handed to another goroutine stays valid.
	p socketproto.Pending
	// encoded is p's JSON as the journal wrote it when the request was
	// added, for the panes' request_added; nil once they are told
	// (tellAdded), and whenever p changes (setStatus, setDraft: the only
	// changes after enqueue).
	encoded []byte
	// waiters are the connections that receive the response: the asker, and
	// any connection that sent "wait" for it.
	waiters []*conn
	// owner is the connection that asked; its cancel withdraws the request
	// even while parked.
	owner *conn
	// parked: asked with "wait": false. Such a request goes back to parked,
	// not orphaned, when the last connection waiting for it leaves.
	parked bool
	elem   *list.Element // in state.order
	// orphanGen invalidates an orphan timer that fires after a "wait".
	orphanGen   uint64
	orphanTimer *time.Timer
	// proposal: the rules this permission prompt's own "remember"
	// options save (rules_glue.go); nil for any other request.
	proposal *proposal
}

// result is a resolved request, kept for daemon.result_retention so that
// "wait" delivers it and a late answer or cancel says already_resolved.
type result struct {
	id      string
	outcome socketproto.Outcome
	via     socketproto.Via
	resp    *socketproto.Response // nil when the request was withdrawn
	expires time.Time
	// asked is the request as asked (no draft): for compaction, and for
	// "same agent, same questions".
	asked     socketproto.Pending
	delivered bool // written to a waiting connection
	// settled: how the user settled it in the agent's own prompt, as the
	// withdrawing agent said (empty for every other resolution).
	settled string
}

// state is everything the queue goroutine owns, in parts that each own one
// concern (embedded, so that their fields read as the state's).
type state struct {
	queueSetup     // what it was started with, and its clock
	queuedRequests // what waits for the user
	keptResults    // what was resolved, kept for "wait"
	subscriberSet  // the panes and watchers
	outgoing       // who is told of each change, and what a step holds back
	journaled      // the state journal (journal_glue.go)
	keptAnswers    // answers kept for a repeated request (kept_answers.go)
	remembered     // remembered decisions (rules_glue.go)
	fileTroubles   // what is said of files that cannot be used
	// configs follows config.toml (configfile.go).
	configs       configFollowing
	notifierHooks // the notifier's, once it starts (notify.go)
}

// queueSetup is what the queue was started with: its options and log, the
// limits in force, its clock, and post, which runs a function in the queue
// goroutine later.
type queueSetup struct {
	opts    Options
	log     *slog.Logger
	limits  socketproto.Limits
	started time.Time
	now     func() time.Time
	post    func(func(*state)) bool
}

// outgoing is what the queue tells others of each change.
type outgoing struct {
	// followers are told of every change (followers.go).
	followers []follower
	replies   cachedReplies // list and snapshot, encoded once per change
	// held is what the current step sends, released by commit once the
	// step's journal writes are done (and fsynced, with daemon.sync =
	// "always"): nothing leaves before the change it reports is kept.
	held []func()
}

// queuedRequests are the requests waiting for the user.
type queuedRequests struct {
	pending map[string]*request
	order   *list.List // of *request, oldest first
	idSeq   uint64
}

// keptResults are resolved requests whose results are kept for
// daemon.result_retention.
type keptResults struct {
	results     map[string]*result
	expiries    []*result // resolve order = expiry order (one retention for all)
	expiryTimer *time.Timer
}

// subscriberSet is the connections that subscribed.
type subscriberSet struct {
	subs      map[*conn]struct{}
	panes     int
	lastState socketproto.DaemonState // the state last announced to subscribers
}

// fileTroubles is what was last said of files that cannot be used, and not
// cleared yet, for subscribers that come later: each pending file's
// (extensions.go), and the daemon's other files' (fileError).
type fileTroubles struct {
	fileTrouble  map[string]string
	otherTrouble map[string]string
}

// notifierHooks are the notifier's: activity is told of the user's keys
// and taps, push is the Web Push store and pushContact its contact; all
// nil until the notifier starts (notify.go).
type notifierHooks struct {
	activity    func(time.Time)
	push        pushService
	pushContact func() (string, error)
}

func newQueue(opts Options, log *slog.Logger) *queue {
	q := &queue{
		kick: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	q.room = sync.NewCond(&q.mu)
	q.st = &state{
		queueSetup: queueSetup{
			opts:    opts,
			log:     log,
			limits:  opts.Config.Limits,
			started: time.Now(),
			now:     time.Now,
			post:    q.post,
		},
		configs:        configFollowing{started: opts.Config},
		queuedRequests: queuedRequests{pending: map[string]*request{}, order: list.New()},
		keptResults:    keptResults{results: map[string]*result{}},
		subscriberSet:  subscriberSet{subs: map[*conn]struct{}{}, lastState: socketproto.StateIdle},
	}
	if opts.now != nil {
		q.st.now = opts.now
		q.st.started = opts.now()
	}
	q.st.follow(subscribers{q.st})
	return q
}

// maxGroup bounds the messages handled before their replies are released:
// with daemon.sync = "always" they share one fsync.
const maxGroup = 256

// maxInbox bounds the clients' lines that wait in the inbox: a connection's
// reader that finds it full waits for room, so that what the
// clients send cannot pile up ahead of the queue.
const maxInbox = 256

// run runs posted functions until ctx ends; timers are the only other
// wake-ups, so an idle daemon uses no CPU.
func (q *queue) run(ctx context.Context) {
	defer close(q.done)
	for {
		select {
		case <-q.kick:
			q.steps.Lock()
			q.runGroups(-1)
			q.steps.Unlock()
		case <-ctx.Done():
			q.steps.Lock()
			q.mu.Lock()
			q.stopped, q.inbox = true, nil
			q.room.Broadcast()
			q.mu.Unlock()
			q.st.commit()
			q.st.stopTimers()
			q.steps.Unlock()
			return
		}
	}
}

// runGroups runs what is posted, a group at a time, until nothing is left
// or it ran max groups (max < 0: no bound). q.steps is held.
func (q *queue) runGroups(max int) {
	for ; max != 0; max-- {
		q.mu.Lock()
		if q.stopped {
			q.mu.Unlock()
			return
		}
		group := q.inbox[:min(len(q.inbox), maxGroup)]
		q.inbox = q.inbox[len(group):]
		if len(q.inbox) == 0 {
			q.inbox = nil // let the array go
		}
		q.room.Broadcast()
		q.mu.Unlock()
		if len(group) == 0 {
			return
		}
		for _, f := range group {
			f(q.st)
		}
		q.st.commit()
		if q.stepped != nil {
			q.stepped()
		}
	}
}

// commit ends a group of steps. Their journal records are written, so
// what they send may leave now, in order; the group's history lines are
// written before its first acknowledgement (send puts them there), so an
// agent's answer does not wait for them. With daemon.sync = "always"
// nothing leaves before the journal's fsync, history included.
func (s *state) commit() {
	syncFirst := s.journal != nil && s.journal.SyncsAtCommit()
	if syncFirst {
		s.commitJournal()
	}
	for len(s.held) > 0 {
		held := s.held
		s.held = nil
		for _, out := range held {
			out()
		}
	}
	if s.journal != nil && !syncFirst {
		s.commitJournal()
	}
}

func (s *state) commitJournal() {
	if err := s.journal.Commit(); err != nil {
		s.log.Error("state journal: fsync failed; the changes are written but a power cut could still lose them", "err", err)
	}
}

// historyBeforeAck holds msg back, if it acknowledges a change, until the
// history lines of the changes so far are written (docs/contract.md §10).
func (s *state) historyBeforeAck(msg socketproto.Message) {
	if s.journal == nil {
		return
	}
	switch msg.(type) {
	case socketproto.OK, socketproto.Queued:
		s.held = append(s.held, s.journal.WriteHistory)
	}
}

// post hands f to the queue goroutine. It reports false once the queue has
// stopped, so a sender never blocks on a daemon that is going away.
func (q *queue) post(f func(*state)) bool {
	if !q.add(f, false) {
		return false
	}
	q.wake()
	return true
}

// postLine is post for a line a client sent: it waits while the inbox holds
// maxInbox functions.
func (q *queue) postLine(f func(*state)) bool {
	if !q.add(f, true) {
		return false
	}
	q.wake()
	return true
}

// postAndRun posts f and, when no goroutine is running steps, runs it and
// whatever was posted before it here, as one group: a connection's reader,
// which holds no lock, hands its line over without a goroutine switch. What
// is posted meanwhile is left to the queue goroutine, so that one reader
// does not work for every other.
func (q *queue) postAndRun(f func(*state)) bool {
	if !q.add(f, true) {
		return false
	}
	if !q.steps.TryLock() {
		q.wake() // the goroutine running steps may have looked for the last time
		return true
	}
	q.runGroups(1)
	q.steps.Unlock()
	q.mu.Lock()
	more := len(q.inbox) > 0
	q.mu.Unlock()
	if more {
		q.wake()
	}
	return true
}

// add appends f to the inbox, for a client's line (fromClient) once there
// is room; false once the queue has stopped. Only a connection's reader
// waits: the queue's own steps and timers post whatever the inbox holds.
func (q *queue) add(f func(*state), fromClient bool) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for fromClient && len(q.inbox) >= maxInbox && !q.stopped {
		q.room.Wait()
	}
	if q.stopped {
		return false
	}
	q.inbox = append(q.inbox, f)
	return true
}

// wake tells the queue goroutine that there are steps to run.
func (q *queue) wake() {
	select {
	case q.kick <- struct{}{}:
	default: // already told
	}
}

// do runs f in the queue goroutine and waits for it; false if the queue stopped.
func (q *queue) do(f func(*state)) bool {
	finished := make(chan struct{})
	if !q.post(func(s *state) { f(s); close(finished) }) {
		return false
	}
	select {
	case <-finished:
		return true
	case <-q.done:
		return false
	}
}

func (s *state) stopTimers() {
	for e := s.order.Front(); e != nil; e = e.Next() {
		if r := e.Value.(*request); r.orphanTimer != nil {
			r.orphanTimer.Stop()
		}
	}
	if s.expiryTimer != nil {
		s.expiryTimer.Stop()
	}
}

// currentState is idle or waiting_for_user.
func (s *state) currentState() socketproto.DaemonState {
	if len(s.pending) == 0 {
		return socketproto.StateIdle
	}
	return socketproto.StateWaiting
}

// pendingList is every pending request, oldest first; never nil, so it
// encodes as [] rather than null.
func (s *state) pendingList() []socketproto.Pending {
	out := make([]socketproto.Pending, 0, len(s.pending))
	for e := s.order.Front(); e != nil; e = e.Next() {
		out = append(out, e.Value.(*request).p)
	}
	return out
}
