'use strict';
// The web pane (docs/contract.md §12): the terminal pane's rules (docs/contract.md §6) in a page.
// Everything shown comes from the server's event stream; every change goes
// back as a POST; both carry the session (session.js). Agent text is only
// ever put into the page with textContent: nothing an agent sends is markup.
(function () {
  const session = window.askuserSession;
  // The server's settings, sent first on the event stream.
  let GUARD = 0, SOFT = 2000, SOCKET = '';
  const $ = id => document.getElementById(id);

  const st = {
    reqs: [],          // {p, qs, tab, sending}, oldest first
    focus: '',         // id of the request on screen
    connected: false,
    connErr: '',
    conditions: [],    // pending file / state dir trouble, until cleared
    notice: '',
    noticeTimer: 0,
    skew: 0,           // server clock minus this one, ms
    shown: '',         // what the guard watches: request and tab on screen
    settleUntil: 0,
    userMoved: false,
    dialog: null,      // {text, yes, no, onYes, onNo}
    hint: '',          // a word about the question on screen (why a tap was not taken)
    loggedOut: false,
  };
  window.askuserState = st; // for tests and curious users

  // --- model ------------------------------------------------------------------

  // newQ starts a question with nothing chosen; a typed question with its
  // default pre-filled (typed into the input, or the option in focus).
  function newQ(q) {
    return {
      q, choice: -1, checked: new Array(q.options.length + 1).fill(false),
      custom: q.defaultText || '', notes: '', answered: false, noteOpen: false, cursor: q.defaultOption,
      known: 'null', inflight: 0, timer: 0, seen: {}, seenUpto: {}, readPct: {}, problem: '',
    };
  }
  const other = s => s.q.options.length;
  const hasOptions = s => s.q.options.length > 0;

  // The page's answer to a question, as the server takes it (options by
  // number); null when there is none yet.
  function pageAnswer(s) {
    const notes = s.notes.trim() ? s.notes : '';
    if (!hasOptions(s)) {
      if (!s.custom.trim() && !notes) return null;
      return { selected: [], custom: s.custom, notes };
    }
    if (s.q.multi) {
      const sel = [];
      for (let i = 0; i < other(s); i++) if (s.checked[i]) sel.push(i);
      const o = s.checked[other(s)] && s.custom.trim() !== '';
      if (!s.answered && !sel.length && !o) return null;
      return { selected: sel, other: o, custom: o ? s.custom : '', notes };
    }
    if (s.choice < 0) return null;
    if (s.choice === other(s)) {
      if (!s.custom.trim()) return null;
      return { selected: [], other: true, custom: s.custom, notes };
    }
    return { selected: [s.choice], notes };
  }

  const tidy = t => (t || '').replace(/\r\n/g, '\n').trim();
  // key says whether two answers mean the same, as the daemon would keep them.
  function key(s, a) {
    if (!a) return 'null';
    const sel = (a.selected || []).slice().sort((x, y) => x - y);
    const typed = !hasOptions(s) || a.other;
    return JSON.stringify([sel, !!a.other, typed ? tidy(a.custom) : '', tidy(a.notes)]);
  }

  function isAnswered(s) {
    if (!hasOptions(s)) return s.custom.trim() !== '' || (s.q.optional && s.answered);
    if (s.q.multi) return s.answered;
    if (s.choice === other(s)) return s.custom.trim() !== '';
    return s.choice >= 0;
  }

  // takeDraft makes the question's answer the daemon's draft: the latest
  // edit wins, wherever it was made.
  function takeDraft(s, d) {
    s.known = key(s, d);
    s.choice = -1;
    s.checked.fill(false);
    s.notes = '';
    s.answered = false;
    if (!d) {
      if (hasOptions(s)) s.custom = '';
      else s.custom = '';
      return;
    }
    s.notes = d.notes || '';
    if (s.notes) s.noteOpen = true;
    if (!hasOptions(s)) {
      s.custom = d.custom || '';
      s.answered = true;
      return;
    }
    for (const i of d.selected || []) {
      s.checked[i] = true;
      if (!s.q.multi) { s.choice = i; s.cursor = i; }
    }
    if (d.other) {
      s.checked[other(s)] = true;
      s.custom = d.custom || '';
      if (!s.q.multi) { s.choice = other(s); s.cursor = other(s); }
    }
    s.answered = true;
  }

  function newReq(p) {
    const r = { p, qs: p.questions.map(newQ), tab: 0, sending: false };
    r.qs.forEach((s, i) => {
      const d = p.questions[i].draft;
      if (d) takeDraft(s, d);
      else s.known = key(s, pageAnswer(s)); // a default is not a draft until the user touches it
    });
    return r;
  }

  // update takes the daemon's new view of a request. While this page's own
  // draft of a question is on its way (or being typed), what the daemon
  // says of it is older, and is not taken.
  function update(r, p) {
    r.p = p;
    r.qs.forEach((s, i) => {
      s.q = p.questions[i];
      const d = p.questions[i].draft;
      if (s.inflight > 0 || s.timer || key(s, d) === s.known) return;
      takeDraft(s, d);
    });
  }

  const find = id => st.reqs.find(r => r.p.id === id);
  const focused = () => find(st.focus);
  const sortReqs = () => st.reqs.sort((a, b) => Date.parse(a.p.createdAt) - Date.parse(b.p.createdAt));

  function refocus(oldIdx) {
    if (focused() || !st.reqs.length) {
      if (!st.reqs.length) st.focus = '';
      return;
    }
    const i = Math.max(0, Math.min(oldIdx < 0 ? 0 : oldIdx, st.reqs.length - 1));
    st.focus = st.reqs[i].p.id;
  }
  const focusIndex = () => st.reqs.findIndex(r => r.p.id === st.focus);

  function requestName(r) {
    const q = r.p.questions[0];
    if (!q) return 'the request';
    let t = q.text.replace(/\s+/g, ' ');
    if (t.length > 60) t = t.slice(0, 59) + '…';
    let name = '“' + t + '”';
    if (r.p.questions.length > 1) name += ' (and ' + plural(r.p.questions.length - 1, 'more question') + ')';
    return name;
  }
  const plural = (n, w) => n === 1 ? '1 ' + w : n + ' ' + w + 's';
  const upper = s => s.charAt(0).toUpperCase() + s.slice(1);

  // --- events from the server ------------------------------------------------

  function handle(ev) {
    switch (ev.type) {
      case 'hello':
        GUARD = ev.guard || 0;
        SOFT = ev.softLimit || 2000;
        SOCKET = ev.socket || '';
        return;
      case 'snapshot': {
        st.skew = ev.now ? Date.parse(ev.now) - Date.now() : 0;
        st.connected = !!ev.connected;
        st.connErr = ev.error || '';
        st.conditions = ev.notices || [];
        const keep = new Map(st.reqs.map(r => [r.p.id, r]));
        const oldIdx = focusIndex();
        const reqs = [];
        for (const p of ev.requests || []) {
          const r = keep.get(p.id);
          if (r) {
            r.qs.forEach(s => { s.inflight = 0; });
            update(r, p);
            r.sending = false;
            reqs.push(r);
            keep.delete(p.id);
          } else {
            reqs.push(newReq(p));
          }
        }
        st.reqs = reqs;
        sortReqs();
        refocus(oldIdx);
        if (keep.size) notice(plural(keep.size, 'request') + ' no longer waiting (resolved while this page was away).');
        st.reqs.forEach(r => r.qs.forEach((s, i) => flushDraft(r, i))); // answers given while away
        break;
      }
      case 'added': {
        const p = ev.request;
        const r0 = find(p.id);
        if (r0) { update(r0, p); break; }
        st.reqs.push(newReq(p));
        sortReqs();
        if (!focused()) st.focus = p.id; // a new request never steals the focus
        notifyNew(p);
        break;
      }
      case 'updated': {
        const r = find(ev.request.id);
        if (r) update(r, ev.request);
        else { st.reqs.push(newReq(ev.request)); sortReqs(); if (!focused()) st.focus = ev.request.id; }
        break;
      }
      case 'resolved': {
        const i = st.reqs.findIndex(r => r.p.id === ev.id);
        if (i < 0) break;
        const r = st.reqs[i];
        const oldIdx = focusIndex();
        st.reqs.splice(i, 1);
        if (st.focus === ev.id) { st.focus = ''; refocus(oldIdx); }
        const q = requestName(r);
        if (r.sending && ev.outcome === 'answered') notice('Answer to ' + q + ' sent.');
        else if (r.sending && ev.outcome === 'cancelled') notice(upper(q) + ' declined.');
        else if (ev.outcome === 'withdrawn' && ev.settled) notice(upper(q) + ' was settled in its agent\'s own prompt: ' + ev.settled + '.');
        else if (ev.outcome === 'withdrawn') notice(upper(q) + ' was withdrawn by its agent.');
        else if (ev.outcome === 'cancelled') notice(upper(q) + ' was declined elsewhere (' + ev.via + ').');
        else notice(upper(q) + ' was answered elsewhere (' + ev.via + ').');
        break;
      }
      case 'conn':
        st.connected = !!ev.connected;
        st.connErr = ev.error || '';
        if (!st.connected) st.reqs.forEach(r => { r.sending = false; });
        break;
      case 'notices':
        st.conditions = ev.notices || [];
        break;
    }
    render();
  }

  // --- drafts and sending -------------------------------------------------------

  async function post(path, body) {
    const res = await session.post(path, body);
    if (res.status === 401) loggedOut();
    return res;
  }

  // flushDraft sends question i's answer so far when it differs from what
  // the daemon has: answers in progress are the daemon's (docs/contract.md §6).
  function flushDraft(r, i) {
    const s = r.qs[i];
    clearTimeout(s.timer);
    s.timer = 0;
    if (r.sending || find(r.p.id) !== r) return;
    const a = pageAnswer(s);
    const k = key(s, a);
    if (k === s.known) return;
    const before = s.known;
    s.known = k;
    s.inflight++;
    // One request's drafts go one after another, so that the daemon takes
    // them in the order they were made: the last one wins there too.
    r.chain = (r.chain || Promise.resolve()).then(() => post('/api/draft', { id: r.p.id, index: i, answer: a })).then(res => {
      s.inflight--;
      if (res.ok && (res.problem || '') !== s.problem && key(s, pageAnswer(s)) === k) {
        s.problem = res.problem || ''; // the rule, checked as the user types
        render();
      }
      if (!res.ok && res.status !== 404 && res.status !== 409) {
        if (s.known === k) s.known = before; // sent again with the next change, or after reconnecting
        notice('Answer kept on this page only (' + (res.error || res.status) + '); it goes to askuserd when it is back.');
      }
    });
  }

  function draftSoon(r, i) {
    const s = r.qs[i];
    clearTimeout(s.timer);
    s.timer = setTimeout(() => flushDraft(r, i), 300);
  }

  async function send(r) {
    for (let i = 0; i < r.qs.length; i++) {
      if (!isAnswered(r.qs[i]) && !r.qs[i].q.optional) {
        if (r.qs.length > 1) { hint('Question ' + (i + 1) + ' is not answered yet.'); setTab(r, i); }
        return;
      }
    }
    // A choice that came from a draft approves a preview this page has not
    // shown in full: not sent until it has been.
    for (let i = 0; i < r.qs.length; i++) {
      const s = r.qs[i];
      if (!s.q.multi && unseenApproval(s, s.choice)) { setTab(r, i); return; }
    }
    r.qs.forEach((s, i) => { clearTimeout(s.timer); s.timer = 0; });
    // null: an optional typed question left empty.
    const answers = r.qs.map(s => pageAnswer(s));
    r.sending = true;
    render();
    const res = await post('/api/answer', { id: r.p.id, answers });
    if (!res.ok) {
      r.sending = false;
      if (res.status === 404 || res.status === 409) {
        drop(r, upper(requestName(r)) + ' is no longer waiting: ' + (res.error || ''));
      } else {
        hint('Not sent: ' + (res.error || res.status) + '. Your answers are kept: change them and send again.');
      }
      render();
    }
  }

  async function decline(r) {
    r.qs.forEach(s => { clearTimeout(s.timer); s.timer = 0; });
    r.sending = true;
    render();
    const res = await post('/api/decline', { id: r.p.id });
    if (!res.ok) {
      r.sending = false;
      if (res.status === 404 || res.status === 409) drop(r, upper(requestName(r)) + ' is no longer waiting.');
      else notice('Not declined (' + (res.error || res.status) + ').');
      render();
    }
  }

  function drop(r, why) {
    const oldIdx = focusIndex();
    st.reqs = st.reqs.filter(x => x !== r);
    if (st.focus === r.p.id) { st.focus = ''; refocus(oldIdx); }
    notice(why);
  }

  // --- the user's actions ---------------------------------------------------------

  // settling: taps that choose, submit, decline or confirm are ignored this
  // long after what is on screen changed by something other than the user.
  const settling = () => GUARD > 0 && Date.now() < st.settleUntil;

  // act runs an action that answers, unless the page is settling.
  function act(fn) {
    return ev => {
      if (ev) ev.preventDefault();
      if (settling()) {
        hint('Not taken: the question on screen just changed. Look, then tap again.');
        render();
        return;
      }
      st.hint = '';
      fn(ev);
    };
  }
  // move runs an action of the user's own navigation: it never starts the guard.
  function move(fn) {
    return ev => {
      if (ev) ev.preventDefault();
      st.userMoved = true;
      st.hint = '';
      fn(ev);
      render();
    };
  }

  function hint(t) { st.hint = t; }

  function setTab(r, t) {
    if (t < 0 || t > r.qs.length || r.qs.length < 2) return;
    r.tab = t;
    st.userMoved = true;
    render();
  }

  // advance moves on after a question was answered: a lone question is sent
  // at once; else the next question not answered yet, then Submit.
  function advance(r) {
    if (r.qs.length === 1) { send(r); return; }
    let next = r.qs.length;
    for (let k = 1; k < r.qs.length; k++) {
      const i = (r.tab + k) % r.qs.length;
      if (!isAnswered(r.qs[i])) { next = i; break; }
    }
    setTab(r, next);
  }

  // unseenApproval: option i approves a preview not yet shown to its end.
  function unseenApproval(s, i) {
    const o = s.q.options[i];
    if (!o || !o.approves || s.seen[i]) return false;
    s.cursor = i;
    hint('Not taken: “' + o.label + '” approves everything in its preview. Scroll the preview to its end first, then choose it.');
    render();
    return true;
  }

  function choose(r, i, idx) {
    const s = r.qs[i];
    if (idx < other(s) && unseenApproval(s, idx)) return;
    s.cursor = idx;
    s.choice = idx;
    s.answered = idx !== other(s) || s.custom.trim() !== '';
    flushDraft(r, i);
    render();
    if (idx === other(s)) focusLater('custom-' + r.p.id + '-' + i);
  }

  function toggle(r, i, idx) {
    const s = r.qs[i];
    if (idx < other(s) && !s.checked[idx] && unseenApproval(s, idx)) return;
    s.checked[idx] = !s.checked[idx];
    s.cursor = idx;
    flushDraft(r, i);
    render();
    if (idx === other(s) && s.checked[idx]) focusLater('custom-' + r.p.id + '-' + i);
  }

  // confirm is the question's main button: Next, or Send on a lone question.
  function confirmQ(r, i) {
    const s = r.qs[i];
    const typed = (!hasOptions(s) || s.checked[other(s)] || s.choice === other(s)) ? s.custom : '';
    const go = () => {
      if (s.q.multi && hasOptions(s)) {
        const any = s.checked.some((c, k) => c && (k < other(s) || s.custom.trim()));
        if (!any) {
          ask('Answer “none of these”? No option is checked.', 'None of these', 'Back', () => {
            s.checked.fill(false);
            s.answered = true;
            flushDraft(r, i);
            advance(r);
          });
          return;
        }
        s.answered = true;
        flushDraft(r, i);
      }
      if (!isAnswered(s)) {
        if (s.q.optional && !hasOptions(s)) {
          s.answered = true; // left empty on purpose
          s.custom = '';
          flushDraft(r, i);
          advance(r);
          return;
        }
        hint(hasOptions(s) ? 'Choose an option first' + (s.q.noOther ? '.' : ' (or Other, and type).') : 'Type an answer first.');
        render();
        return;
      }
      const a = pageAnswer(s);
      if (s.q.rule && typed.trim()) {
        // Refused here, as the daemon would: the rule is on screen.
        post('/api/check', { id: r.p.id, index: i, answer: a }).then(res => {
          s.problem = (res.ok && res.problem) || '';
          if (s.problem) { hint('Not accepted: ' + s.problem + '.'); render(); return; }
          flushDraft(r, i);
          advance(r);
        });
        return;
      }
      flushDraft(r, i);
      advance(r);
    };
    const n = [...typed].length;
    if (n > SOFT) {
      ask('Answer is long (' + n.toLocaleString('en') + ' chars). Continue anyway?', 'Continue', 'Keep editing', go,
        () => focusLater('custom-' + r.p.id + '-' + i));
      return;
    }
    go();
  }

  // declineFlow: decline at once when nothing would be lost, else ask.
  function declineFlow(r) {
    const n = r.qs.filter(s => s.answered || s.custom.trim() || s.notes.trim() || s.checked.some(Boolean) || s.choice >= 0).length;
    if (!n) { decline(r); return; }
    ask('Discard ' + plural(n, 'answer') + '?', 'Discard and decline', 'Keep answering', () => decline(r));
  }

  function ask(text, yes, no, onYes, onNo) {
    st.dialog = { text, yes, no, onYes, onNo, req: st.focus };
    render();
  }

  // --- notices -----------------------------------------------------------------------

  function notice(t) {
    st.notice = t;
    clearTimeout(st.noticeTimer);
    if (t) st.noticeTimer = setTimeout(() => { st.notice = ''; renderNotice(); }, 6000);
    renderNotice();
  }

  function notifyNew(p) {
    if (!document.hidden || !('Notification' in window) || Notification.permission !== 'granted') return;
    try {
      const body = p.questions.length ? p.questions[0].text.slice(0, 300) : '';
      new Notification('askuser: ' + (p.agent || 'an agent') + ' asks', { body, tag: p.id });
    } catch (e) { /* some browsers only notify from a service worker */ }
  }

  // --- rendering ------------------------------------------------------------------------

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      const v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of kids.flat()) if (c !== null && c !== undefined && c !== false) e.append(c);
    return e;
  }
  // txt is agent text: as text, in its own direction, never markup.
  const txt = (tag, cls, s) => el(tag, { class: cls, text: s, dir: 'auto' });

  function ago(t) {
    const s = Math.max(0, Math.round((Date.now() + st.skew - Date.parse(t)) / 1000));
    if (s < 60) return s + 's ago';
    if (s < 3600) return Math.floor(s / 60) + 'm ago';
    if (s < 86400) return Math.floor(s / 3600) + 'h ago';
    return Math.floor(s / 86400) + 'd ago';
  }

  function renderNotice() {
    const parts = st.conditions.concat(st.notice ? [st.notice] : []);
    $('notice').textContent = parts.join(' ');
    $('notice').hidden = !parts.length;
  }

  function renderHeader() {
    const n = st.reqs.length;
    $('title').textContent = n ? 'askuser — ' + n + ' waiting' : 'askuser';
    document.title = n ? '(' + n + ') askuser' : 'askuser';
    const r = focused();
    const who = $('who');
    who.textContent = '';
    if (r) {
      const name = r.p.agent || 'an agent';
      who.append(el('span', { class: 'agent', text: name, dir: 'auto' }), ' asked ', el('span', { class: 'age', text: ago(r.p.createdAt) }));
      if (r.p.status === 'orphaned') who.append(el('span', { class: 'tag', text: 'agent disconnected' }));
      if (r.p.cwd) who.append(el('div', { class: 'cwd', text: r.p.cwd, dir: 'auto' }));
    }
    $('reqnav').hidden = n < 2;
    $('pos').textContent = n ? 'request ' + (focusIndex() + 1) + ' of ' + n : '';
    $('prev').disabled = focusIndex() <= 0;
    $('next').disabled = focusIndex() >= n - 1;
    const c = $('conn');
    c.hidden = st.connected && !st.loggedOut;
    c.textContent = st.loggedOut ? '' : (st.connErr || 'Connecting to askuserd…');
    const nb = $('notify');
    nb.hidden = !('Notification' in window) || Notification.permission !== 'default';
  }

  function render() {
    if (st.loggedOut) return;
    // Keep what the user is in the middle of: the focused input, its caret,
    // and how far each preview was scrolled.
    const active = document.activeElement;
    const activeKey = active && active.dataset ? active.dataset.k : '';
    const sel = active && 'selectionStart' in active ? [active.selectionStart, active.selectionEnd] : null;
    const scrolls = {};
    document.querySelectorAll('[data-scroll]').forEach(e => { scrolls[e.dataset.scroll] = e.scrollTop; });

    renderHeader();
    renderNotice();
    const main = $('main');
    const next = document.createElement('main');
    const r = focused();
    if (!r) {
      next.append(el('section', { class: 'empty' },
        el('p', { class: 'big', text: 'No questions waiting' }),
        el('p', { text: 'Agents ask through askuserd at ' + SOCKET })));
    } else if (r.sending) {
      next.append(el('section', { class: 'empty' }, el('p', { class: 'big', text: 'Sending…' })));
    } else {
      next.append(renderRequest(r));
    }
    // Nodes under a finger are not replaced when nothing on them changed (a
    // draft's echo, an age): a tap that began on a button ends on it.
    if (next.innerHTML !== main.innerHTML) {
      main.replaceChildren(...next.childNodes);
    } else {
      syncInputs(main, next);
    }
    renderDialog();

    document.querySelectorAll('[data-scroll]').forEach(e => {
      if (scrolls[e.dataset.scroll] !== undefined) e.scrollTop = scrolls[e.dataset.scroll];
    });
    if (activeKey) {
      const again = document.querySelector('[data-k="' + CSS.escape(activeKey) + '"]');
      if (again) {
        again.focus({ preventScroll: true });
        if (sel && 'setSelectionRange' in again) try { again.setSelectionRange(sel[0], sel[1]); } catch (e) { /* not text */ }
      }
    }
    watchGuard();
    requestAnimationFrame(checkPreviews);
  }

  // syncInputs gives the kept text inputs the model's text (a draft from
  // elsewhere), except the one being typed in.
  function syncInputs(main, next) {
    const fresh = next.querySelectorAll('textarea');
    main.querySelectorAll('textarea').forEach((ta, i) => {
      if (ta !== document.activeElement && fresh[i] && ta.value !== fresh[i].value) ta.value = fresh[i].value;
    });
  }

  // watchGuard starts the guard when what is on screen changed by something
  // other than the user's own navigation (docs/contract.md §6).
  function watchGuard() {
    const r = focused();
    const what = r && !r.sending ? r.p.id + '\u0000' + r.tab : '';
    if (what !== st.shown) {
      if (what && !st.userMoved && GUARD > 0) {
        st.settleUntil = Date.now() + GUARD;
        document.body.classList.add('settling');
        setTimeout(() => { if (!settling()) document.body.classList.remove('settling'); }, GUARD + 20);
      }
      st.shown = what;
    }
    st.userMoved = false;
  }

  function renderRequest(r) {
    const box = el('section', { class: 'request', 'data-request': r.p.id });
    if (r.qs.length > 1) box.append(renderTabs(r));
    if (r.tab >= r.qs.length && r.qs.length > 1) box.append(renderSubmit(r));
    else box.append(renderQuestion(r, r.tab));
    if (st.hint) box.append(el('p', { class: 'hint', role: 'alert', text: st.hint }));
    box.append(el('div', { class: 'actions secondary' },
      el('button', { type: 'button', class: 'decline', onclick: act(() => declineFlow(r)), text: 'Decline' })));
    return box;
  }

  function renderTabs(r) {
    const nav = el('nav', { class: 'tabs', 'aria-label': 'Questions' });
    r.qs.forEach((s, i) => {
      const label = (isAnswered(s) ? '■ ' : '□ ') + (s.q.header || 'Question ' + (i + 1));
      nav.append(el('button', {
        type: 'button', class: 'tab' + (r.tab === i ? ' current' : ''), 'aria-current': r.tab === i ? 'step' : null,
        onclick: move(() => { r.tab = i; }), dir: 'auto', text: label,
      }));
    });
    nav.append(el('button', {
      type: 'button', class: 'tab submit-tab' + (r.tab === r.qs.length ? ' current' : ''),
      onclick: move(() => { r.tab = r.qs.length; }), text: '✓ Submit',
    }));
    return nav;
  }

  function renderQuestion(r, i) {
    const s = r.qs[i];
    const id = r.p.id;
    const q = s.q;
    const box = el('div', { class: 'question' });
    if (q.header) box.append(txt('div', 'header', q.header));
    box.append(txt('h2', 'qtext', q.text));
    if (q.rule) box.append(el('p', { class: 'rule', dir: 'auto', text: 'Answer: ' + q.rule + (q.optional ? ' (optional)' : '') }));
    if (hasOptions(s)) {
      if (q.multi) box.append(el('p', { class: 'how', text: 'Choose any number, then Next.' }));
      const list = el('div', { class: 'options', role: q.multi ? 'group' : 'radiogroup' });
      q.options.forEach((o, k) => list.append(renderOption(r, i, k, o)));
      if (!q.noOther) list.append(renderOption(r, i, other(s), null));
      box.append(list);
      const showOther = q.multi ? s.checked[other(s)] : s.choice === other(s);
      if (showOther) box.append(textInput(r, i, 'custom', 'Your answer'));
      const pv = previewOf(s);
      if (pv) box.append(pv);
    } else {
      box.append(textInput(r, i, 'custom', q.optional ? 'Your answer (may be left empty)' : 'Your answer'));
    }
    if (s.problem) box.append(el('p', { class: 'problem', role: 'alert', dir: 'auto', text: 'Not accepted yet: ' + s.problem + '.' }));
    box.append(renderNote(r, i));
    const last = r.qs.length === 1;
    box.append(el('div', { class: 'actions' },
      el('button', {
        type: 'button', class: 'primary', id: 'primary-' + id + '-' + i,
        onclick: act(() => confirmQ(r, i)), text: last ? 'Send' : 'Next',
      })));
    return box;
  }

  function renderOption(r, i, k, o) {
    const s = r.qs[i];
    const isOther = o === null;
    const on = s.q.multi ? s.checked[k] : s.choice === k;
    const b = el('button', {
      type: 'button', class: 'option' + (on ? ' on' : '') + (s.cursor === k ? ' cursor' : '') + (isOther ? ' other' : ''),
      role: s.q.multi ? 'checkbox' : 'radio', 'aria-checked': on ? 'true' : 'false',
      'data-option': k,
      onclick: act(() => (s.q.multi ? toggle : choose)(r, i, k)),
    });
    const mark = s.q.multi ? (on ? '☑' : '☐') : (on ? '●' : '○');
    b.append(el('span', { class: 'mark', 'aria-hidden': 'true', text: mark }));
    const body = el('span', { class: 'body' });
    if (isOther) body.append(el('span', { class: 'label', text: 'Other (type your answer)' }));
    else {
      body.append(txt('span', 'label', o.label));
      if (o.description) body.append(txt('span', 'desc', o.description));
      if (o.preview) body.append(el('span', { class: 'has-preview', text: o.approves ? 'approves the preview below' : 'preview' }));
    }
    b.append(body);
    return b;
  }

  // previewOf is the preview of the option in focus (the chosen one, or the
  // one last tapped), in a box that scrolls: nothing is cut off unseen.
  function previewOf(s) {
    let k = s.cursor;
    if (k < 0 || k >= other(s)) k = s.q.multi ? -1 : s.choice;
    if (k < 0 || k >= other(s)) k = s.q.options.findIndex(o => o.preview && !o.approves);
    const o = s.q.options[k];
    if (!o || !o.preview) return null;
    const pre = el('pre', { class: 'preview', dir: 'auto', tabindex: '0', 'data-scroll': 'pv-' + k, 'data-approves': o.approves ? String(k) : null,
      'aria-label': 'Preview of ' + o.label, text: o.preview });
    pre.addEventListener('scroll', () => checkPreviews());
    const wrap = el('div', { class: 'preview-wrap' },
      el('div', { class: 'preview-title', dir: 'auto', text: previewTitle(s, k) }),
      pre);
    return wrap;
  }

  // previewTitle names the preview and, for one that Allow approves, how far
  // it has been read: a user who scrolled past lines too fast to see them
  // learns where to scroll back to.
  function previewTitle(s, k) {
    const o = s.q.options[k];
    if (!o.approves) return 'Preview: ' + o.label;
    if (s.seen[k]) return 'Preview: ' + o.label + ' — read to the end';
    const read = s.readPct[k] !== undefined ? ' (read ' + s.readPct[k] + '% of it)' : '';
    return 'Preview: ' + o.label + ' — scroll to the end to allow' + read;
  }

  // checkPreviews records how far each approving preview has been shown: a
  // line counts once it was inside the box's window while the box was wholly
  // on screen, read on from the lines seen before (a jump does not count).
  function checkPreviews() {
    const r = focused();
    if (!r || r.tab >= r.qs.length) return;
    const s = r.qs[r.tab];
    document.querySelectorAll('pre[data-approves]').forEach(pre => {
      const k = Number(pre.dataset.approves);
      if (s.seen[k]) return;
      // The window less what covers it: the sticky header above, the
      // sticky main button below (on a phone).
      const top = $('top').getBoundingClientRect().bottom;
      const bar = document.querySelector('.question > .actions');
      const bottom = bar && getComputedStyle(bar).position === 'sticky' ? bar.getBoundingClientRect().top : window.innerHeight;
      const rect = pre.getBoundingClientRect();
      if (rect.height === 0 || rect.top < top || rect.bottom > bottom) return;
      const upto = s.seenUpto[k] || 0;
      if (pre.scrollTop <= upto + 1) s.seenUpto[k] = Math.max(upto, pre.scrollTop + pre.clientHeight);
      const pct = Math.min(99, Math.floor(100 * s.seenUpto[k] / pre.scrollHeight));
      if (pct !== s.readPct[k] && pre.previousElementSibling) {
        s.readPct[k] = pct;
        pre.previousElementSibling.textContent = previewTitle(s, k);
      }
      if (s.seenUpto[k] >= pre.scrollHeight - 1) {
        s.seen[k] = true;
        if (st.hint) st.hint = '';
        render();
      }
    });
  }
  window.addEventListener('scroll', () => checkPreviews(), { passive: true });
  window.addEventListener('resize', () => checkPreviews());

  function textInput(r, i, field, placeholder) {
    const s = r.qs[i];
    const k = field + '-' + r.p.id + '-' + i;
    const ta = el('textarea', {
      class: 'text', rows: field === 'notes' ? 2 : 3, placeholder, 'data-k': k, id: k, 'aria-label': placeholder,
      autocomplete: 'off', spellcheck: 'true',
    });
    const mode = { number: 'decimal', integer: 'numeric', email: 'email', uri: 'url' }[s.q.kind];
    if (field === 'custom' && mode) ta.setAttribute('inputmode', mode);
    ta.textContent = s[field];
    ta.value = s[field];
    ta.addEventListener('input', () => {
      s[field] = ta.value;
      ta.textContent = ta.value; // the markup says what the input holds (see render)
      if (field === 'custom' && hasOptions(s) && !s.q.multi) s.choice = other(s);
      draftSoon(r, i);
      refreshMarks(r);
    });
    ta.addEventListener('blur', () => { if (s.timer) flushDraft(r, i); });
    if (field === 'custom') {
      ta.addEventListener('keydown', ev => {
        // Enter sends (Shift-Enter for a new line), as the terminal pane's input does.
        if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); act(() => confirmQ(r, i))(); }
      });
    }
    return ta;
  }

  // refreshMarks updates the tab marks while the user types, without
  // redrawing (and losing the caret).
  function refreshMarks(r) {
    if (r.qs.length < 2) return;
    document.querySelectorAll('.tabs .tab').forEach((b, i) => {
      if (i >= r.qs.length) return;
      const s = r.qs[i];
      b.textContent = (isAnswered(s) ? '■ ' : '□ ') + (s.q.header || 'Question ' + (i + 1));
    });
  }

  function renderNote(r, i) {
    const s = r.qs[i];
    if (!s.noteOpen) {
      return el('button', { type: 'button', class: 'small note-btn', onclick: move(() => { s.noteOpen = true; focusLater('notes-' + r.p.id + '-' + i); }), text: 'Add a note' });
    }
    return el('div', { class: 'note' }, el('label', { for: 'notes-' + r.p.id + '-' + i, text: 'Note' }), textInput(r, i, 'notes', 'A note to go with the answer'));
  }

  function renderSubmit(r) {
    const box = el('div', { class: 'question submit' });
    box.append(el('h2', { class: 'qtext', text: 'Review and send' }));
    const dl = el('dl', { class: 'summary' });
    r.qs.forEach((s, i) => {
      dl.append(el('dt', {}, el('button', { type: 'button', class: 'link', onclick: move(() => { r.tab = i; }), dir: 'auto', text: (i + 1) + '. ' + s.q.text })));
      const sum = summary(s);
      dl.append(el('dd', { class: sum ? '' : 'missing', dir: 'auto', text: sum || 'not answered yet' }));
      if (s.notes.trim()) dl.append(el('dd', { class: 'noteline', dir: 'auto', text: 'note: ' + s.notes.trim() }));
    });
    box.append(dl);
    box.append(el('div', { class: 'actions' },
      el('button', { type: 'button', class: 'primary', id: 'send-' + r.p.id, onclick: act(() => send(r)), text: 'Send answers' })));
    return box;
  }

  function summary(s) {
    if (!isAnswered(s)) return s.q.optional ? '(left empty)' : '';
    if (!hasOptions(s)) return s.custom.trim() || '(left empty)';
    const parts = [];
    if (s.q.multi) {
      s.q.options.forEach((o, k) => { if (s.checked[k]) parts.push(o.label); });
      if (s.checked[other(s)] && s.custom.trim()) parts.push(s.custom.trim());
      return parts.length ? parts.join(', ') : '(none of these)';
    }
    return s.choice === other(s) ? s.custom.trim() : s.q.options[s.choice].label;
  }

  function renderDialog() {
    const d = st.dialog;
    const box = $('dialog');
    if (d && d.req !== st.focus) st.dialog = null; // the request asked about left
    if (!st.dialog) { box.hidden = true; return; }
    box.hidden = false;
    $('dialog-text').textContent = d.text;
    const yes = $('dialog-yes'), no = $('dialog-no');
    yes.textContent = d.yes;
    no.textContent = d.no;
    yes.onclick = act(() => { st.dialog = null; render(); d.onYes(); });
    no.onclick = ev => { ev.preventDefault(); st.dialog = null; render(); if (d.onNo) d.onNo(); };
  }

  function focusLater(k) {
    requestAnimationFrame(() => { const e = $(k); if (e) e.focus(); });
  }

  // --- the event stream ------------------------------------------------------------------

  // One stream at a time; a new one starts with the whole truth.
  let live = null; // the AbortController of the stream being read
  let retry = 1000;
  let watchdog = 0;
  let again = 0;
  function kick() {
    clearTimeout(watchdog);
    // The server speaks at least every 50 s; silence longer than that is
    // a dead connection (a phone that slept): start again.
    watchdog = setTimeout(connect, 120000);
  }
  function connect() {
    if (st.loggedOut) return;
    if (live) live.abort();
    clearTimeout(again);
    const ctl = new AbortController();
    live = ctl;
    kick();
    session.stream('/api/events', () => { retry = 1000; }, (name, data) => {
      if (ctl !== live) return;
      kick();
      if (name === 'message') handle(JSON.parse(data));
    }, ctl.signal).then(status => {
      if (ctl !== live) return; // replaced by a newer stream
      live = null;
      clearTimeout(watchdog);
      if (status === 401) { loggedOut(); return; }
      st.connected = false;
      st.connErr = status === 0 ? 'askuserd web cannot be reached; retrying.' : 'Reconnecting to askuserd web…';
      renderHeader();
      again = setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10000);
    });
  }
  // loggedOut: the session ended (the secret was rotated). Nothing of the
  // questions stays on the page.
  function loggedOut() {
    showLogin('Logged out', 'Open the address that askuserd web --url prints to log in again.');
  }

  // showLogin: no session. Nothing of the questions stays on the page.
  function showLogin(big, small) {
    st.loggedOut = true;
    st.reqs = [];
    if (live) { const l = live; live = null; l.abort(); }
    clearTimeout(watchdog);
    clearTimeout(again);
    $('main').textContent = '';
    $('main').append(el('section', { class: 'empty login' },
      el('p', { class: 'big', text: big }),
      el('p', { text: small })));
    $('who').textContent = '';
    $('reqnav').hidden = true;
    $('notice').hidden = true;
    $('dialog').hidden = true;
    $('title').textContent = 'askuser';
    $('conn').hidden = true;
  }

  document.addEventListener('visibilitychange', () => {
    // Back from the background (a phone woken): the stream may have died
    // silently; a new one starts with the whole truth.
    if (!document.hidden) connect();
  });
  window.addEventListener('online', connect);

  $('prev').addEventListener('click', move(() => { st.dialog = null; const i = focusIndex(); if (i > 0) st.focus = st.reqs[i - 1].p.id; }));
  $('next').addEventListener('click', move(() => { st.dialog = null; const i = focusIndex(); if (i < st.reqs.length - 1) st.focus = st.reqs[i + 1].p.id; }));
  $('notify').addEventListener('click', () => {
    Notification.requestPermission().then(() => renderHeader());
  });
  // Ages stay current.
  setInterval(() => { if (st.reqs.length) renderHeader(); }, 15000);

  session.start().then(how => {
    if (how === 'ok') { render(); connect(); return; }
    if (how === 'refused') showLogin('That secret is not valid', 'It may have been rotated with askuserd web --rotate: open the address that askuserd web --url prints now.');
    else if (how === 'unreachable') showLogin('askuserd web cannot be reached', 'Is it running? Reload this page once it is.');
    else showLogin('This page needs the address with its secret', 'On the machine that runs askuser, askuserd web --url prints it, with a QR code for a phone.');
  });
})();
