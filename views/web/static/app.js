'use strict';
// The web pane (docs/contract.md §12), a face of the pane's core
// (views/panecore, docs/contract.md §6). The server runs one core for this
// browser session; the page draws the view the core sends over the event
// stream and sends back what the user did, each action stamped with the
// revision of the view it was made on. The page keeps no rule of its own:
// whether a tap is taken, what is an answer, what is typed and not yet
// accepted, when a dialog asks, which buttons are available and why not,
// how long ago a question was asked, are the core's, and its words are
// shown as they are. For a preview that Allow approves it only reports which
// lines were on screen. Agent text is only ever put into the page with
// textContent: nothing an agent sends is markup.
(function () {
  const session = window.askuserSession;
  const push = window.askuserPush;
  const $ = id => document.getElementById(id);

  const st = {
    view: null,          // the core's view, as last sent; null until the first
    link: 'connecting',  // the stream to askuserd web: connecting, open, lost
    loggedOut: false,
    devices: null,       // the Devices list while it is open: {loaded, list, error, renaming}
    sendError: '',       // an action that did not reach askuserd web
    bells: -1,
    refusal: '',         // the refusal last brought into view
    touched: null,       // the option last tapped, drawn as such until the core's view says
    views: 0,            // views read from the stream
  };
  window.askuserState = st; // for tests and curious users

  const focusedReq = () => (st.view && st.view.focus >= 0 ? st.view.requests[st.view.focus] : null);

  // --- actions ----------------------------------------------------------------

  // Actions go in order, in batches: while one call is on its way the next
  // ones wait, so that the core takes them as they were made. A text typed
  // replaces the one before it in the queue (the core takes the whole text).
  const queue = [];
  let posting = false;
  let queued = 0, shipped = 0; // actions put in the queue, and taken by askuserd web
  const sentText = {}; // input key → the text last sent for it

  function act(kind, fields) {
    const r = focusedReq();
    const a = Object.assign({ kind, rev: st.view ? st.view.rev : 0 }, r ? { request: r.id } : {}, fields || {});
    const last = queue[queue.length - 1];
    if (kind === 'type' && last && last.kind === 'type' && last.request === a.request) queue[queue.length - 1] = a;
    else { queue.push(a); queued++; }
    pump();
  }

  async function pump() {
    if (posting || !queue.length || st.loggedOut) return;
    posting = true;
    const batch = queue.splice(0, 512);
    const res = await session.post('/api/action', { actions: batch });
    posting = false;
    shipped += batch.length;
    if (res.status === 401) { loggedOut(); return; }
    taken();
    const err = res.ok ? '' : 'Not sent to askuserd web (' + (res.error || 'it could not be reached') + '). Try again.';
    if (err !== st.sendError) { st.sendError = err; renderHeader(); }
    pump();
  }

  // An action bound to a click: the button's own.
  const on = (kind, fields) => ev => { if (ev) ev.preventDefault(); act(kind, fields); };

  // --- the event stream ---------------------------------------------------------

  let live = null; // the AbortController of the stream being read
  let retry = 1000;
  let watchdog = 0, again = 0;
  function kick() {
    clearTimeout(watchdog);
    // The server speaks at least every 50 s; silence longer than that is a
    // dead connection (a phone that slept): start again.
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
      if (name !== 'message') return;
      const m = JSON.parse(data);
      if (m.type !== 'view') return;
      st.view = m.view;
      st.views++;
      if (st.touched && st.touched.taken) st.touched = null; // the view after it: the core's word
      openWanted();
      st.link = 'open';
      render();
    }, ctl.signal).then(status => {
      if (ctl !== live) return; // replaced by a newer stream
      live = null;
      clearTimeout(watchdog);
      if (status === 401) { loggedOut(); return; }
      st.link = 'lost';
      renderHeader();
      again = setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10000);
    });
  }

  function loggedOut() {
    showLogin('Logged out', 'This device was logged out (revoked, or askuserd web --rotate). On the machine that runs askuser, askuserd web --url prints a pairing link to log in again.');
  }

  // showLogin: no session. Nothing of the questions stays on the page.
  function showLogin(big, small) {
    st.loggedOut = true;
    st.view = null;
    st.devices = null;
    if (live) { const l = live; live = null; l.abort(); }
    clearTimeout(watchdog);
    clearTimeout(again);
    $('main').replaceChildren(el('section', { class: 'empty login' }, el('p', { class: 'big', text: big }), el('p', { text: small })));
    for (const id of ['reqnav', 'floats', 'dialog', 'rules', 'devices']) $(id).hidden = true;
    $('who').textContent = '';
    $('title').textContent = 'askuser';
    document.title = 'askuser';
  }

  // --- building blocks ------------------------------------------------------------

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
  // put appends what there is (a part may be null: nothing to show).
  function put(parent, ...kids) {
    for (const c of kids.flat()) if (c !== null && c !== undefined && c !== false) parent.append(c);
  }
  // txt is agent text: as text, in its own direction, never markup.
  const txt = (tag, cls, s) => el(tag, { class: cls, text: s, dir: 'auto' });

  // offer is the action the view names (View.actions), null when it does
  // not apply here.
  const offer = name => (st.view && st.view.actions && st.view.actions[name]) || null;

  // actionButton is a button for an action the view offers: its label, and
  // greyed out with the reason as its title while the view says it would
  // not be taken (a tap still goes to the core, which refuses it, or goes
  // to what stops it).
  function actionButton(a, attrs) {
    const b = el('button', Object.assign({
      type: 'button', text: a.label, title: a.disabled || null, 'aria-disabled': a.disabled ? 'true' : null,
      onclick: ev => { on(a.kind, a.delta ? { delta: a.delta } : null)(ev); b.classList.add('touched'); },
    }, attrs || {}));
    if (a.disabled) b.classList.add('off');
    return b;
  }

  // whyNot is the reasons the actions shown are not available, in the
  // view's words, each once, leaving out what the page shows already: the
  // problem under the input, the word about the last action; and none
  // while a refusal is drawn next to what it concerns, which says it.
  function whyNot(...actions) {
    const v = st.view;
    if (v.refusal) return [];
    const shown = new Set([v.input && v.input.problemText, v.hint].filter(Boolean));
    const out = [];
    for (const a of actions) {
      if (!a || !a.disabled || shown.has(a.disabled)) continue;
      shown.add(a.disabled);
      out.push(el('p', { class: 'why', role: 'status', dir: 'auto', text: a.disabled }));
    }
    return out;
  }

  // refusalAt is the refusal, when it concerns this element of the screen.
  // One about the whole request or question floats above the button bar
  // (refusalAbove), where it pushes nothing down.
  function refusalAt(element, q, option) {
    const f = st.view && st.view.refusal;
    if (!f || f.element !== element) return null;
    if (q !== undefined && f.question !== q) return null;
    if (option !== undefined && f.option !== option) return null;
    return el('p', { class: 'refusal', role: 'alert', dir: 'auto', text: f.text });
  }

  // --- the header, notices, connection ---------------------------------------------

  function renderHeader() {
    if (st.loggedOut) return;
    const v = st.view;
    const n = v ? v.requests.length : 0;
    $('title').textContent = n ? 'askuser — ' + n + ' waiting' : 'askuser';
    document.title = n ? '(' + n + ') askuser' : 'askuser';
    const r = focusedReq();
    const who = $('who');
    who.textContent = '';
    if (r) {
      put(who, el('span', { class: 'agent', text: r.agent, dir: 'auto' }), ' asked ', el('span', { class: 'age', text: r.age }));
      if (r.statusText) put(who, el('span', { class: 'tag', text: r.statusText }));
      if (r.about) put(who, ' · ', el('span', { class: 'cwd', text: r.about, dir: 'auto' }));
    }
    // The line ends in "…" when it is longer than the screen: its whole text
    // is its title, and a tap (or Enter) shows it whole.
    who.title = who.textContent;
    const prev = offer('prevRequest'), next = offer('nextRequest');
    // With a request on screen the navigation keeps its place, shown or
    // not: a second request arriving moves nothing under a finger.
    $('reqnav').hidden = !r;
    $('reqnav').classList.toggle('idle', !prev && !next);
    $('pos').textContent = n ? (v.focus + 1) + ' of ' + n : '';
    $('pos').setAttribute('aria-label', n ? 'request ' + (v.focus + 1) + ' of ' + n : '');
    for (const [id, a] of [['prev', prev], ['next', next]]) {
      $(id).disabled = !a || !!a.disabled;
      $(id).title = a ? a.disabled || a.label : '';
      if (a) $(id).setAttribute('aria-label', a.label);
    }
    const c = $('conn');
    const lost = st.link === 'lost' ? 'askuserd web cannot be reached; reconnecting…'
      : st.link === 'connecting' ? 'Connecting to askuserd…' : (v && v.connLost) || '';
    c.textContent = lost;
    c.hidden = !lost;
    const notes = (v && v.notices ? v.notices.map(x => x.text) : []).concat(st.sendError ? [st.sendError] : []);
    $('notice').textContent = notes.join(' ');
    $('notice').hidden = !notes.length;
    renderNotify();
  }

  // --- a request ---------------------------------------------------------------------

  function renderRequest(r) {
    const box = el('section', { class: 'request', 'data-request': r.id });
    if (r.questions.length > 1) put(box, renderTabs(r));
    put(box, r.onSubmit ? renderSubmit(r) : renderQuestion(r, r.tab));
    const decline = offer('decline');
    if (decline) put(box, el('div', { class: 'actions secondary' }, actionButton(decline, { class: 'decline' }), whyNot(decline)));
    return box;
  }

  function renderTabs(r) {
    const nav = el('nav', { class: 'tabs', 'aria-label': 'Questions' });
    r.questions.forEach((q, i) => put(nav, el('button', {
      type: 'button', class: 'tab' + (r.tab === i ? ' current' : ''), 'aria-current': r.tab === i ? 'step' : null,
      onclick: on('tabTo', { item: i }), dir: 'auto', text: (q.answered ? '■ ' : '□ ') + q.tabLabel,
    })));
    put(nav, el('button', {
      type: 'button', class: 'tab submit-tab' + (r.onSubmit ? ' current' : ''),
      onclick: on('tabTo', { item: r.questions.length }), text: '✓ Submit',
    }));
    return nav;
  }

  const inputOn = (r, i, kind) => {
    const x = st.view.input;
    return x && x.kind === kind && x.request === r.id && x.question === i ? x : null;
  };

  function renderQuestion(r, i) {
    const q = r.questions[i];
    const next = offer('next'), leave = offer('leaveEmpty');
    const other = q.options ? q.options.length : 0;
    const box = el('div', { class: 'question' });
    if (q.header) put(box, txt('div', 'header', q.header));
    put(box, txt('h2', 'qtext', q.question));
    if (q.rule) put(box, el('p', { class: 'rule', dir: 'auto', text: 'Answer: ' + q.rule }));
    // What Allow approves is shown as the question arrives, in the page's
    // flow, before the options: it is read on the way to the button.
    (q.options || []).forEach((o, k) => { if (o.approvesPreview) put(box, preview(r, i, k, true)); });
    const answer = inputOn(r, i, 'answer');
    if (other) {
      if (q.multi && next) put(box, el('p', { class: 'how', text: 'Choose any number, then ' + next.label + '.' }));
      const list = el('div', { class: 'options', role: q.multi ? 'group' : 'radiogroup' });
      for (const k of q.items) {
        const ref = refusalAt('option', i, k);
        put(list, ref ? el('div', { class: 'option-slot' }, renderOption(r, i, k), ref) : renderOption(r, i, k));
        if (k === other && answer) put(list, textInput(answer));
      }
      put(box, list);
      const custom = q.multi ? q.checked[other] : q.choice === other;
      if (custom && !answer && q.custom) put(box, el('p', { class: 'typed', dir: 'auto', text: 'Other: ' + q.custom }));
      if (!answer && q.typing) put(box, el('p', { class: 'typed typing', dir: 'auto', text: 'Other, typed and not accepted yet: ' + q.typing }));
      const k = q.cursor;
      if (k >= 0 && k < other && (q.options[k].preview || q.options[k].previewLines) && !q.options[k].approvesPreview) put(box, preview(r, i, k, false));
    } else if (answer) {
      put(box, textInput(answer));
    } else if (q.custom) {
      put(box, el('p', { class: 'typed', dir: 'auto', text: q.custom }));
    }
    if (!other && !answer && q.typing) put(box, el('p', { class: 'typed typing', dir: 'auto', text: 'Typed and not accepted yet: ' + q.typing }));
    if (answer) put(box, refusalAt('input', i));
    put(box, renderNote(r, i));
    if (st.view.hint && !st.view.refusal) put(box, el('p', { class: 'hint', role: 'status', text: st.view.hint }));
    const buttons = el('div', { class: 'actions' });
    if (leave) put(buttons, actionButton(leave));
    if (next) put(buttons, actionButton(next, { class: 'primary', id: 'primary-' + r.id + '-' + i }));
    put(buttons, whyNot(leave, next));
    put(box, buttons);
    return box;
  }

  function renderOption(r, i, k) {
    const q = r.questions[i];
    const isOther = k === q.options.length;
    const o = isOther ? null : q.options[k];
    const chosen = q.multi ? q.checked[k] : q.cursor === k;
    // A tap moves the choice (Send takes it); Other opens its input; a
    // multi-select box toggles.
    const kind = q.multi || isOther ? 'pick' : 'focus';
    const b = el('button', {
      type: 'button', class: 'option' + (chosen ? ' on' : '') + (isOther ? ' other' : ''),
      role: q.multi ? 'checkbox' : 'radio', 'aria-checked': chosen ? 'true' : 'false', 'data-option': k,
      onclick: ev => { ev.preventDefault(); act(kind, { item: k }); touch({ request: r.id, question: i, option: k }); },
    });
    b.append(el('span', { class: 'mark', 'aria-hidden': 'true', text: q.multi ? (chosen ? '☑' : '☐') : (chosen ? '●' : '○') }));
    const body = el('span', { class: 'body' });
    if (isOther) body.append(el('span', { class: 'label', text: 'Other (type your answer)' }));
    else {
      body.append(txt('span', 'label', o.label));
      if (o.description) body.append(txt('span', 'desc', o.description));
      if (o.approvesPreview) body.append(el('span', { class: 'has-preview approving', text: o.read ? 'approves everything shown above (read)' : 'approves everything shown above: read it to the end first' }));
      else if (o.preview || o.previewLines) body.append(el('span', { class: 'has-preview', text: 'preview' }));
    }
    b.append(body);
    return b;
  }

  // preview shows option k's preview. One that Allow approves says how much
  // of it has been read, as the core counts it.
  function preview(r, i, k, approves) {
    const o = r.questions[i].options[k];
    let title = 'Preview: ' + o.label;
    if (approves) {
      title = 'What “' + o.label + '” approves';
      title += o.read ? ' — read to the end' : ' — read it to the end' + (o.readPercent ? ' (read ' + o.readPercent + '% of it)' : '');
    }
    const lines = o.previewLines;
    return el('div', { class: 'preview-wrap' + (approves ? ' approves' : '') },
      el('div', { class: 'preview-title', dir: 'auto', text: title }),
      el('pre', {
        class: 'preview' + (lines ? ' drawn' : ''), dir: lines ? 'ltr' : 'auto', tabindex: '0',
        'data-q': approves ? String(i) : null, 'data-approves': approves ? String(k) : null,
        'aria-label': title, text: lines ? null : o.preview,
      }, lines ? drawnLines(lines) : null));
  }

  // drawnLines lays out a preview the core drew in its form (a file's text,
  // a diff): one row a line, its numbers and the diff's mark in a gutter,
  // its text wrapping beside it. Each row is whole lines of the box's line
  // height, so the lines reported read are the lines drawn.
  function drawnLines(lines) {
    let most = 0, diff = false;
    for (const l of lines) {
      most = Math.max(most, l.old || 0, l.new || 0);
      diff = diff || l.kind === 'same' || l.kind === 'del' || l.kind === 'add';
    }
    const w = String(most).length;
    const num = n => (n ? String(n) : '').padStart(w, ' ');
    const mark = { same: '   ', del: ' - ', add: ' + ' };
    return lines.map(l => {
      let g = '';
      if (l.kind === 'text') g = num(l.new) + '  ';
      else if (mark[l.kind]) g = num(l.old) + ' ' + num(l.new) + mark[l.kind];
      return el('div', { class: 'pl ' + l.kind },
        g ? el('span', { class: 'g', 'aria-hidden': 'true', text: g }) : null,
        el('span', { class: 't', dir: 'auto', text: l.text }));
    });
  }

  function textInput(input) {
    const k = (input.kind === 'note' ? 'notes-' : 'custom-') + input.request + '-' + input.question;
    const ta = el('textarea', {
      class: 'text', rows: input.kind === 'note' ? 2 : 3, placeholder: input.placeholder, 'data-k': k, id: k,
      'aria-label': input.kind === 'note' ? 'Note' : 'Your answer', autocomplete: 'off', spellcheck: 'true',
    });
    ta.value = input.text;
    ta.textContent = input.text; // the markup says what the input holds (see render)
    ta.addEventListener('input', () => { sentText[k] = ta.value; act('type', { text: ta.value }); });
    ta.addEventListener('keydown', ev => {
      // Enter takes it (Shift-Enter for a new line), as the terminal pane's input does.
      if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); act(input.kind === 'note' ? 'accept' : 'next'); }
    });
    const parts = [ta];
    if (input.problemText) parts.push(el('p', { class: 'problem', role: 'alert', dir: 'auto', text: input.problemText }));
    return parts;
  }

  function renderNote(r, i) {
    const q = r.questions[i];
    const note = inputOn(r, i, 'note');
    if (note) {
      return el('div', { class: 'note' },
        el('label', { for: 'notes-' + r.id + '-' + i, text: 'Note' }), textInput(note),
        el('div', { class: 'note-actions' },
          el('button', { type: 'button', class: 'small', onclick: on('back'), text: 'Cancel note' }),
          el('button', { type: 'button', class: 'small', onclick: on('accept'), text: 'Save note' })));
    }
    if (q.notes) {
      return el('div', { class: 'note' }, el('p', { class: 'typed', dir: 'auto', text: 'Note: ' + q.notes }),
        el('button', { type: 'button', class: 'small note-btn', onclick: on('note'), text: 'Edit the note' }));
    }
    return el('button', { type: 'button', class: 'small note-btn', onclick: on('note'), text: 'Add a note' });
  }

  function renderSubmit(r) {
    const box = el('div', { class: 'question submit' });
    put(box, el('h2', { class: 'qtext', text: 'Review and send' }));
    const dl = el('dl', { class: 'summary' });
    r.questions.forEach((q, i) => {
      put(dl, el('dt', {}, el('button', { type: 'button', class: 'link', onclick: on('tabTo', { item: i }), dir: 'auto', text: (i + 1) + '. ' + q.question })));
      put(dl, el('dd', { class: q.missing ? 'missing' : '', dir: 'auto', text: q.listed }));
      if (q.notes) put(dl, el('dd', { class: 'noteline', dir: 'auto', text: 'note: ' + q.notes }));
    });
    put(box, dl);
    put(box, refusalAt('submit'));
    if (st.view.hint && !st.view.refusal) put(box, el('p', { class: 'hint', role: 'status', text: st.view.hint }));
    const send = offer('submit');
    if (send) put(box, el('div', { class: 'actions' }, actionButton(send, { class: 'primary', id: 'send-' + r.id }), whyNot(send)));
    return box;
  }

  // The dialog's buttons say what they do; the highlighted one is what the
  // core calls the default, never the one that throws work away.
  const dialogWords = {
    long: ['Continue', 'Keep editing'],
    discard: ['Discard and decline', 'Keep answering'],
    none: ['None of these', 'Back'],
  };
  function renderDialog() {
    const d = st.view && st.view.dialog;
    const box = $('dialog');
    if (!d) { box.hidden = true; return; }
    const wasHidden = box.hidden;
    box.hidden = false;
    if ($('dialog-text').textContent !== d.text) $('dialog-text').textContent = d.text;
    // The buttons are made once per dialog: a view that changes something
    // else (an age, a notice) leaves them, and the focus, as they are.
    const buttons = $('dialog-buttons');
    const key = d.kind + '/' + !!d.defaultYes;
    let fresh = false;
    if (wasHidden || buttons.dataset.key !== key) {
      const [yesText, noText] = dialogWords[d.kind] || ['Yes', 'No'];
      const yes = el('button', { type: 'button', id: 'dialog-yes', class: (d.defaultYes ? 'primary' : '') + (d.kind === 'discard' ? ' danger' : ''), text: yesText, onclick: on('yes') });
      const no = el('button', { type: 'button', id: 'dialog-no', class: d.defaultYes ? '' : 'primary', text: noText, onclick: on('back') });
      buttons.replaceChildren(no, yes);
      buttons.dataset.key = key;
      fresh = true;
    }
    // The default has the focus, unless the user moved it to the other
    // button; focus lost to the page (a redraw behind) comes back.
    if (fresh || !buttons.contains(document.activeElement)) $(d.defaultYes ? 'dialog-yes' : 'dialog-no').focus({ preventScroll: true });
  }

  // --- remembered decisions (docs/contract.md §13) ----------------------------------------

  // renderRules is the Rules view: each rule in words (clean, from the
  // core), who made it and where, how often it answered; Revoke removes one.
  function renderRules(rv) {
    const box = el('section', { class: 'rules' }, el('h2', { text: 'Rules: prompts they cover are allowed without asking' }));
    if (!rv.loaded) { put(box, el('p', { class: 'how', text: 'Loading…' })); return box; }
    if (rv.problem) put(box, el('p', { class: 'refusal', role: 'alert', dir: 'auto', text: rv.problem }));
    if (!rv.rules.length) put(box, el('p', { class: 'how', text: 'No rules. Choose “Allow, and remember” on a permission prompt to make one.' }));
    for (const r of rv.rules) {
      put(box, el('div', { class: 'rule-item', 'data-rule': String(r.id) },
        el('p', { dir: 'auto', text: 'Rule ' + r.id + ': ' + r.sentence }),
        el('p', { class: 'how', text: r.details }),
        el('button', { type: 'button', class: 'small revoke', onclick: on('revokeRule', { item: r.id }), text: 'Revoke rule ' + r.id })));
    }
    return box;
  }

  // --- devices (docs/contract.md §12) ------------------------------------------------------

  // The Devices list is askuserd web's, not the core's: every login is a
  // device, listed with when it paired and was last seen; Rename and Revoke
  // go to askuserd web, which says what was done. Revoking this device logs
  // this page out.
  async function loadDevices(word) {
    const r = await session.get('/api/devices');
    if (r.status === 401) { loggedOut(); return; }
    if (!st.devices) return; // closed meanwhile
    st.devices = Object.assign(st.devices, { loaded: true, list: r.devices || [], error: r.ok ? '' : (r.error || 'not loaded'), word: word || '' });
    render();
  }
  async function deviceCall(path, body, word) {
    const r = await session.post(path, body);
    if (r.status === 401) { loggedOut(); return; }
    if (!st.devices) return;
    st.devices.renaming = '';
    await loadDevices(r.ok ? word(r) : (r.error || 'not done'));
  }
  function renderDevices(d) {
    const box = el('section', { class: 'devices' }, el('h2', { text: 'Devices logged in to this page' }));
    if (!d.loaded) { put(box, el('p', { class: 'how', text: 'Loading…' })); return box; }
    if (d.error) put(box, el('p', { class: 'refusal', role: 'alert', dir: 'auto', text: d.error }));
    if (d.word) put(box, el('p', { class: 'hint', role: 'status', dir: 'auto', text: d.word }));
    if (!d.list.length) put(box, el('p', { class: 'how', text: 'No devices.' }));
    for (const x of d.list) {
      const item = el('div', { class: 'device-item', 'data-device': x.id },
        el('p', { dir: 'auto' }, el('strong', { text: x.name }), x.this ? ' (this device)' : ''),
        el('p', { class: 'how', text: x.details }));
      if (d.renaming === x.id) {
        const k = 'device-name-' + x.id;
        const input = el('input', { type: 'text', class: 'text', 'data-k': k, id: k, maxlength: '60', 'aria-label': 'New name', value: x.name });
        input.addEventListener('keydown', ev => { if (ev.key === 'Enter') { ev.preventDefault(); saveName(x.id, input.value); } });
        put(item, input, el('div', { class: 'note-actions' },
          el('button', { type: 'button', class: 'small', text: 'Cancel', onclick: ev => { ev.preventDefault(); d.renaming = ''; render(); } }),
          el('button', { type: 'button', class: 'small save-name', text: 'Save name', onclick: ev => { ev.preventDefault(); saveName(x.id, $(k).value); } })));
      } else {
        put(item, el('div', { class: 'note-actions' },
          el('button', { type: 'button', class: 'small rename', text: 'Rename', 'aria-label': 'Rename ' + x.name, onclick: ev => { ev.preventDefault(); d.renaming = x.id; render(); const i = $('device-name-' + x.id); if (i) i.focus(); } }),
          el('button', { type: 'button', class: 'small revoke', text: 'Revoke', 'aria-label': 'Revoke ' + x.name, onclick: ev => {
            ev.preventDefault();
            deviceCall('/api/devices/' + encodeURIComponent(x.id) + '/revoke', {}, r => 'Revoked ' + r.name + ': it is logged out; the others stay.' + (r.push ? ' ' + r.push[0].toUpperCase() + r.push.slice(1) + '.' : ''));
          } })));
      }
      put(box, item);
    }
    put(box, el('p', { class: 'how', text: 'Another device: on the machine that runs askuser, askuserd web --url prints a pairing link (one device, once, within 10 minutes).' }));
    return box;
  }
  function saveName(id, name) {
    deviceCall('/api/devices/' + encodeURIComponent(id) + '/rename', { name }, r => 'Renamed: ' + r.name + '.');
  }
  function toggleDevices(ev) {
    ev.preventDefault();
    if (st.devices) { st.devices = null; render(); return; }
    if (st.view && st.view.rulesView) act('closeRules');
    st.devices = { loaded: false, list: [], error: '', word: '', renaming: '' };
    render();
    loadDevices();
  }

  // --- drawing -------------------------------------------------------------------------

  function render() {
    if (st.loggedOut) return;
    const v = st.view;
    // Keep what the user is in the middle of: the focused input, its text
    // not yet taken by the core, its caret.
    const active = document.activeElement;
    const activeKey = active && active.dataset ? active.dataset.k : '';
    const activeValue = activeKey ? active.value : '';
    const sel = active && 'selectionStart' in active ? [active.selectionStart, active.selectionEnd] : null;

    renderHeader();
    document.body.classList.toggle('settling', !!(v && v.settling));
    const main = $('main');
    const next = document.createElement('main');
    const r = focusedReq();
    if (!v) next.append(el('section', { class: 'empty' }, el('p', { class: 'big', text: 'Connecting…' })));
    else if (!r) {
      next.append(el('section', { class: 'empty' },
        el('p', { class: 'big', text: 'No questions waiting' }),
        el('p', { text: 'Agents ask through askuserd at ' + v.socket })));
    } else if (r.sending) next.append(el('section', { class: 'empty' }, el('p', { class: 'big', text: 'Sending…' })));
    else next.append(renderRequest(r));
    if (v && v.rulesView) next.replaceChildren(renderRules(v.rulesView));
    $('rules').textContent = v && v.rulesView ? 'Back' : 'Rules';
    if (st.devices) next.replaceChildren(renderDevices(st.devices));
    $('devices').textContent = st.devices ? 'Back' : 'Devices';
    markTouched(next);
    refusalAbove(v && !v.rulesView && !st.devices && r && !r.sending ? r : null);
    // Nodes under a finger are not replaced when nothing on them changed (an
    // age, a draft's echo): a tap that began on a button ends on it.
    if (next.innerHTML !== main.innerHTML) {
      // Held at its length through the swap: measuring the new content
      // must not let the scroll position follow it.
      const before = main.getBoundingClientRect().height, y = window.scrollY;
      main.style.minHeight = before + 'px';
      main.replaceChildren(...next.childNodes);
      keepLength(main, before, y, v && r && !v.rulesView && !st.devices ? r.id + '/' + r.tab : '');
    }
    renderDialog();

    if (activeKey) {
      const again = document.querySelector('[data-k="' + CSS.escape(activeKey) + '"]');
      if (again) {
        // Text typed since the last that was sent stays as typed; the rest
        // is what the core holds (a refused key is gone again).
        if (activeValue !== sentText[activeKey] || queue.length || posting) again.value = activeValue;
        again.focus({ preventScroll: true });
        if (sel && 'setSelectionRange' in again) try { again.setSelectionRange(sel[0], sel[1]); } catch (e) { /* not text */ }
      }
    }
    showRefusal();
    notifyNew();
    requestAnimationFrame(reportShown);
  }

  // showRefusal brings a new refusal into view, where it was drawn: next to
  // what caused it.
  function showRefusal() {
    const f = st.view && st.view.refusal;
    const key = f ? JSON.stringify(f) + st.view.rev : '';
    if (key === st.refusal) return;
    st.refusal = key;
    const e = document.querySelector('main .refusal');
    if (e) e.scrollIntoView({ block: 'nearest' });
  }

  // refusalAbove draws a refusal about the whole request or the question
  // on screen where the notices are: over the page, above the button bar,
  // in view without scrolling and moving nothing.
  function refusalAbove(r) {
    const f = st.view && st.view.refusal;
    const show = r && f && (f.element === 'request' || (f.element === 'question' && !r.onSubmit && f.question === r.tab));
    const said = $('said');
    const text = show ? f.text : '';
    if (said.textContent === text) return;
    said.replaceChildren(...(show ? [el('p', { class: 'refusal', role: 'alert', dir: 'auto', text })] : []));
  }

  // keepLength: what goes from below the options (a reason under the
  // button, a hint) would shorten the page, and at its end the scroll
  // position would follow and pull the options down under a finger. The
  // page keeps its length until the user scrolls away from its end, or
  // another question is drawn.
  const kept = { key: '', natural: 0 };
  function keepLength(main, before, y, key) {
    const last = main.lastElementChild;
    const h = last ? last.getBoundingClientRect().bottom - main.getBoundingClientRect().top + parseFloat(getComputedStyle(main).paddingBottom) : 0;
    if (!key || key !== kept.key || y <= 0 || h >= before) main.style.minHeight = '';
    kept.key = key;
    kept.natural = h;
  }
  window.addEventListener('scroll', () => {
    const main = $('main');
    if (!main.style.minHeight) return;
    const extra = parseFloat(main.style.minHeight) - kept.natural;
    if (document.documentElement.scrollHeight - window.scrollY - window.innerHeight >= extra) main.style.minHeight = '';
  }, { passive: true });

  // --- a tap drawn at once ------------------------------------------------------------

  // touch marks the option just tapped, "sending", the moment the finger
  // lifts: drawing only, no rule. The core's next view says what was
  // taken (the option chosen, or a refusal) and the mark goes with it.
  let touchTimer = 0;
  function touch(at) {
    st.touched = Object.assign(at, { upto: queued, views: st.views, taken: false });
    clearTimeout(touchTimer);
    markTouched(document.getElementById('main'));
  }
  function markTouched(root) {
    const t = st.touched, r = focusedReq();
    if (!t || !r || r.id !== t.request || r.tab !== t.question || r.onSubmit) return;
    const b = root.querySelector('button.option[data-option="' + t.option + '"]');
    if (!b || b.classList.contains('touched')) return;
    b.classList.add('touched');
    b.append(el('span', { class: 'sending', text: 'sending' }));
  }
  // taken: askuserd web has the tapped option's action. The view that
  // followed it came already, or is on its way: the mark goes with the
  // next view, or soon when none comes (a tap that changed nothing).
  function taken() {
    const t = st.touched;
    if (!t || t.taken || shipped < t.upto) return;
    t.taken = true;
    if (st.views > t.views) { st.touched = null; render(); return; }
    touchTimer = setTimeout(() => { if (st.touched === t) { st.touched = null; render(); } }, 300);
  }

  // --- reading a preview ------------------------------------------------------------------

  // reportShown tells the core which lines of each approving preview are on
  // screen now (the window less the sticky header above and the sticky
  // button bar below): the core decides what was read.
  const lastShown = {};
  function reportShown() {
    const r = focusedReq();
    if (!r || r.onSubmit || r.sending || st.loggedOut) return;
    const coverTop = $('top').getBoundingClientRect().bottom;
    const bar = document.querySelector('.question > .actions');
    let coverBottom = bar && getComputedStyle(bar).position === 'sticky' ? bar.getBoundingClientRect().top : window.innerHeight;
    // A notice floating above the button bar hides what is under it.
    const floats = $('floats').getBoundingClientRect();
    if (floats.height > 0) coverBottom = Math.min(coverBottom, floats.top);
    document.querySelectorAll('pre[data-approves]').forEach(pre => {
      const i = Number(pre.dataset.q), k = Number(pre.dataset.approves);
      const o = r.questions[i] && r.questions[i].options[k];
      if (!o || o.read) return;
      const cs = getComputedStyle(pre);
      const lh = parseFloat(cs.lineHeight);
      const rect = pre.getBoundingClientRect();
      const top0 = rect.top + parseFloat(cs.paddingTop) + parseFloat(cs.borderTopWidth) - pre.scrollTop;
      const height = pre.scrollHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
      if (!(lh > 0) || height <= 0) return;
      const total = Math.max(1, Math.round(height / lh));
      const boxTop = Math.max(rect.top + parseFloat(cs.borderTopWidth), coverTop);
      const boxBottom = Math.min(rect.bottom - parseFloat(cs.borderBottomWidth), coverBottom);
      const from = Math.max(0, Math.ceil((boxTop - top0) / lh - 0.05));
      const to = Math.min(total, Math.floor((boxBottom - top0) / lh + 0.05));
      if (to <= from) return;
      const width = Math.round(pre.clientWidth);
      const key = [width, from, to, total].join();
      if (lastShown[r.id + '/' + i + '/' + k] === key) return;
      lastShown[r.id + '/' + i + '/' + k] = key;
      act('shown', { request: r.id, question: i, item: k, width, top: from, rows: to - from, total });
    });
  }
  let framed = false;
  const reportSoon = () => { if (!framed) { framed = true; requestAnimationFrame(() => { framed = false; reportShown(); }); } };
  window.addEventListener('scroll', reportSoon, { passive: true });
  document.addEventListener('scroll', reportSoon, { passive: true, capture: true }); // a preview box that scrolls itself
  window.addEventListener('resize', reportSoon);

  // --- in the background ---------------------------------------------------------------------

  // renderNotify shows what "Notify me on this device" can do here: Web
  // Push where the browser has it on a secure origin (askuserd notifies this
  // device even with the page closed); else, with notifications allowed, a
  // notification from this tab while it is open in the background.
  function renderNotify() {
    const b = $('notify');
    const how = push.state();
    b.dataset.state = how;
    if (how === 'on') {
      b.hidden = false;
      notifyLabel(b, 'Notifying', ' this device');
      b.title = 'askuserd pushes new questions to this device; tap to stop';
    } else if (how === 'off') {
      b.hidden = false;
      notifyLabel(b, 'Notify', ' me on this device');
      b.title = 'Questions reach this device even with the page closed';
    } else {
      b.hidden = !('Notification' in window) || Notification.permission !== 'default';
      b.textContent = 'Notify me';
      b.removeAttribute('aria-label');
      b.title = how === 'insecure' ? 'Only while this page is open: notifications with the page closed need https (askuserd web --tailscale)' : 'Only while this page is open';
    }
  }

  // notifyLabel is the button's words; on a narrow screen only the first is
  // shown (CSS .wide), and its accessible name is always the whole.
  function notifyLabel(b, first, rest) {
    b.textContent = '';
    put(b, first, el('span', { class: 'wide', text: rest }));
    b.setAttribute('aria-label', first + rest);
  }

  async function toggleNotify() {
    const how = push.state();
    if (how === 'on' || how === 'off') {
      const err = how === 'on' ? await push.unsubscribe() : await push.subscribe();
      st.sendError = err;
      renderHeader();
      return;
    }
    Notification.requestPermission().then(() => renderHeader());
  }

  // notifyNew raises a notification when the core counts a new request and
  // the page is not looked at, unless askuserd pushes to this device (its
  // notification comes then, by its rules: grace, bursts, reminders). Its
  // tag is not the pushed one's, which it would replace and leave open
  // when the request is answered.
  function notifyNew() {
    const v = st.view;
    if (!v) return;
    push.badge(v.requests.length);
    const grew = st.bells >= 0 && v.bells > st.bells;
    st.bells = v.bells;
    if (!grew || !document.hidden || push.state() === 'on' || !('Notification' in window) || Notification.permission !== 'granted') return;
    const p = v.requests.find(r => r.id === v.rang);
    if (!p) return;
    try {
      new Notification('askuser: ' + p.agent + ' asks', { body: p.questions.length ? p.questions[0].question.slice(0, 300) : '', tag: 'tab:' + p.id });
    } catch (e) { /* some browsers only notify from a service worker */ }
  }

  document.addEventListener('visibilitychange', () => {
    // Back from the background (a phone woken): the stream may have died
    // silently; a new one starts with the whole truth.
    if (!document.hidden && st.link !== 'open') connect();
  });
  window.addEventListener('online', connect);
  $('rules').addEventListener('click', ev => { ev.preventDefault(); if (st.devices) { st.devices = null; render(); } act(st.view && st.view.rulesView ? 'closeRules' : 'rules'); });
  $('devices').addEventListener('click', toggleDevices);
  $('prev').addEventListener('click', ev => { const a = offer('prevRequest'); if (a) on(a.kind, { delta: a.delta })(ev); });
  $('next').addEventListener('click', ev => { const a = offer('nextRequest'); if (a) on(a.kind, { delta: a.delta })(ev); });
  $('notify').addEventListener('click', toggleNotify);
  const toggleWho = () => {
    const w = $('who');
    if (!w.firstChild) return;
    w.classList.toggle('open');
    w.setAttribute('aria-expanded', String(w.classList.contains('open')));
  };
  $('who').addEventListener('click', toggleWho);
  $('who').addEventListener('keydown', ev => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); toggleWho(); } });

  // wanted is the request a notification's link names (?request=ID): the
  // page opens it once it is among the requests (the user's own move).
  let wanted = push.requested();
  function openWanted() {
    if (!wanted || !st.view) return;
    if (st.view.requests.some(r => r.id === wanted)) act('open', { request: wanted });
    wanted = '';
  }

  session.start().then(how => {
    if (how === 'ok') { render(); connect(); push.start(renderHeader); return; }
    if (how === 'pairing') {
      const r = session.refusal();
      const big = r.reason === 'used' ? 'This pairing link was used already' : r.reason === 'expired' ? 'This pairing link expired' : 'This pairing link is not valid';
      showLogin(big, r.error || 'On the machine that runs askuser, askuserd web --url prints a new one.');
    } else if (how === 'refused') showLogin('That secret is not valid', 'It may have been rotated with askuserd web --rotate: open the address that askuserd web --url prints now.');
    else if (how === 'unreachable') showLogin('askuserd web cannot be reached', 'Is it running? Reload this page once it is.');
    else showLogin('This page needs a pairing link', 'On the machine that runs askuser, askuserd web --url prints one, with a QR code for a phone.');
  });
})();
