'use strict';
// The session (docs/contract.md §12). A pairing link's code in the address
// (#p=…, once, within 10 minutes) or the long-lived secret (#s=…, or ?s=…)
// is traded once for a session token, which this origin keeps in its
// localStorage and presents as "Authorization: Bearer …" on every call, the
// event stream included. Storage is per origin (scheme, host and port): a
// page on another port of this host can neither read the token nor have the
// browser send it, as it could a cookie.
window.askuserSession = (function () {
  const KEY = 'askuser-session';
  let memory = ''; // where storage is refused (a private window on some phones)

  function load() {
    try { return localStorage.getItem(KEY) || ''; } catch (e) { return memory; }
  }
  function save(t) {
    memory = t;
    try { if (t) localStorage.setItem(KEY, t); else localStorage.removeItem(KEY); } catch (e) { /* memory only */ }
  }

  // loginInAddress takes the pairing code or the secret out of the address
  // bar, so that it is neither kept in the history nor shown over a
  // shoulder: the login body that trades it, or null.
  function loginInAddress() {
    const p = /(?:^#|&)p=([A-Za-z0-9_-]+)/.exec(location.hash);
    const m = /(?:^#|&)s=([A-Za-z0-9_-]+)/.exec(location.hash) || /(?:^\?|&)s=([A-Za-z0-9_-]+)/.exec(location.search);
    if (p || m) history.replaceState(null, '', '/');
    return p ? { pair: p[1] } : m ? { secret: m[1] } : null;
  }

  let refusal = { error: '', reason: '' }; // why the last login was refused

  // start resolves to 'ok' with a token to present, 'none' when there is
  // neither a token nor a login in the address, 'refused' when the secret
  // is not valid, 'pairing' when the pairing link was refused (used, expired:
  // refusal() says what happened), 'unreachable' when the server could not
  // be asked.
  async function start() {
    const body = loginInAddress();
    if (!body) return load() ? 'ok' : 'none';
    let r;
    try {
      r = await fetch('/login', {
        method: 'POST', cache: 'no-store', credentials: 'omit',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    } catch (e) {
      return 'unreachable';
    }
    const j = await r.json().catch(() => ({}));
    if (!r.ok || !j.token) {
      refusal = { error: j.error || '', reason: j.reason || '' };
      // A refused pairing link leaves a device already logged in here as it is.
      if (body.pair) return 'pairing';
      save('');
      return 'refused';
    }
    save(j.token);
    return 'ok';
  }

  function headers(extra) {
    return Object.assign({ Authorization: 'Bearer ' + load() }, extra || {});
  }

  // send makes a call (a change, or a GET); the reply's JSON with ok and
  // status added. A 401 forgets the token: it will never be valid again.
  async function send(method, path, body) {
    let res;
    try {
      const init = { method, cache: 'no-store', credentials: 'omit', headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }) };
      if (body !== undefined) init.body = JSON.stringify(body);
      res = await fetch(path, init);
    } catch (e) {
      return { ok: false, status: 0, error: 'askuserd web could not be reached' };
    }
    let j = {};
    try { j = await res.json(); } catch (e) { /* not JSON */ }
    if (res.status === 401) save('');
    return Object.assign({ ok: res.ok, status: res.status }, j);
  }
  const post = (path, body) => send('POST', path, body);

  // stream reads the server's event stream (fetch, since EventSource cannot
  // send a header) and calls onMessage with each message's event name and
  // data, until it ends; it resolves to the HTTP status (0: unreachable),
  // and forgets the token on a 401.
  async function stream(path, onOpen, onMessage, signal) {
    let res;
    try {
      res = await fetch(path, { cache: 'no-store', credentials: 'omit', headers: headers(), signal });
    } catch (e) {
      return 0;
    }
    if (res.status === 401) save('');
    if (!res.ok || !res.body) return res.status;
    onOpen();
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let end;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          let name = 'message', data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) name = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          // A page that fails to draw one message still reads the next
          // (the error is reported, not swallowed).
          if (data) try { onMessage(name, data); } catch (e) { setTimeout(() => { throw e; }); }
        }
      }
    } catch (e) { /* the connection broke, or was aborted */ }
    return res.status;
  }

  return { start, refusal: () => refusal, post, send, get: path => send('GET', path), stream, token: load, loggedIn: () => !!load(), forget: () => save('') };
})();
