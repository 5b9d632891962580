// askuser's service worker (docs/contract.md §12 "Web Push"): it shows the
// notifications askuserd pushes, closes them when their requests are
// answered anywhere, keeps the app badge, and acts on a tap.
//
// A push's data is askuserd's payload, decrypted by the browser:
//   {"type":"show","tag":ID,"title":…,"body":…,"url":"/?request=ID",
//    "requestId":ID?,"actions":[labels]?,"renotify":bool,"badge":N,
//    "closeFirst":bool?}
//   {"type":"close","tag":ID,"badge":N,"settled":bool?,"title":…?,"body":…?}
// On Apple's push service a push must show something, or Safari revokes
// the subscription after a few (WWDC22 "Meet Web Push for Safari"), and a
// notification is not reliably replaced by its tag: there askuserd sends
// "closeFirst" (close the tag, then show) and "settled" (after closing,
// show quietly how it was settled, as one notification that the next
// replaces).
// Text in it is already clean (socketproto/agenttext); a notification shows
// text, never markup.
//
// A tap opens the page at the request. An action (offered only for one
// single-select question that approves nothing) is sent through the page's
// own API with the page's session, and answers only if the page's core
// takes it (the same guard and first answer wins as a tap on the page);
// otherwise the page opens at the request.
'use strict';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));

self.addEventListener('push', (e) => {
  let p = null;
  try { p = e.data ? e.data.json() : null; } catch (_) { p = null; }
  if (!p || typeof p.tag !== 'string') return;
  e.waitUntil(handlePush(p));
});

const settledTag = 'askuser-settled';

async function closeTag(tag) {
  const shown = await self.registration.getNotifications({ tag: tag });
  for (const n of shown) n.close();
}

async function handlePush(p) {
  setBadge(p.badge);
  if (p.type === 'close') {
    await closeTag(p.tag);
    if (p.settled) {
      await showChecked(String(p.title || 'askuser'), {
        body: String(p.body || ''), tag: settledTag, silent: true, renotify: false,
        icon: '/static/icon-192.png', data: { url: pageURL('/', settledTag) },
      });
    }
    return;
  }
  if (p.type !== 'show') return;
  await closeTag(settledTag); // what it said is no longer the news
  if (p.closeFirst) await closeTag(p.tag);
  const labels = Array.isArray(p.actions) ? p.actions.map(String) : [];
  const max = (self.Notification && Notification.maxActions) || 2;
  const options = {
    body: String(p.body || ''),
    tag: p.tag,
    renotify: !!p.renotify,
    icon: '/static/icon-192.png',
    timestamp: Date.now(),
    actions: labels.slice(0, max).map((label, i) => ({ action: 'pick:' + i, title: label })),
    data: { url: pageURL(p.url, p.tag), requestId: p.requestId || '', labels: labels, shownAt: Date.now() },
  };
  await showChecked(String(p.title || 'askuser'), options);
}

// showChecked shows a notification and checks that it is listed: Chromium
// sometimes drops one (the first an origin shows; a settled notice on a
// busy machine). Shown again quietly (it replaces its own tag), at most
// twice, so that a browser that lists none rings once.
async function showChecked(title, options) {
  for (let i = 0; i < 3; i++) {
    await self.registration.showNotification(title, options);
    if ((await self.registration.getNotifications({ tag: options.tag })).length) return;
    options.renotify = false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function setBadge(n) {
  if (typeof n !== 'number' || !self.navigator || !navigator.setAppBadge) return;
  (n > 0 ? navigator.setAppBadge(n) : navigator.clearAppBadge()).catch(() => {});
}

// pageURL keeps a notification's link on this origin.
function pageURL(url, tag) {
  try {
    const u = new URL(url || '/', self.location.origin);
    if (u.origin === self.location.origin) return u.href;
  } catch (_) { /* fall through */ }
  return new URL('/?request=' + encodeURIComponent(tag), self.location.origin).href;
}

self.addEventListener('notificationclick', (e) => {
  e.notification.close();
  e.waitUntil(onClick(e.notification, e.action || ''));
});

// onClick is a tap on the notification or one of its actions. The page's
// tests call it through a message (below), as a tap cannot be made by the
// DevTools protocol.
async function onClick(n, action) {
  const d = n.data || {};
  if (action.startsWith('pick:') && d.requestId) {
    const item = Number(action.slice(5));
    const taken = await pick(d.requestId, item, (d.labels || [])[item]);
    if (taken) return;
  }
  await openPage(d.url || pageURL('', n.tag));
}

// pick sends the choice through the page's API; true when it was taken.
async function pick(requestId, item, label) {
  const token = await sessionToken();
  if (!token || typeof label !== 'string') return false;
  try {
    const r = await fetch('/api/notified', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Authorization': 'Bearer ' + token },
      body: JSON.stringify({ request: requestId, item: item, label: label }),
    });
    if (!r.ok) return false;
    const body = await r.json();
    return !!body.taken;
  } catch (_) {
    return false;
  }
}

async function openPage(url) {
  const wins = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const w of wins) {
    if (new URL(w.url).origin === self.location.origin && 'navigate' in w) {
      await w.focus().catch(() => {});
      await w.navigate(url).catch(() => {});
      return;
    }
  }
  await self.clients.openWindow(url);
}

// The page hands the worker its session token (a worker cannot read the
// page's localStorage); the worker keeps it in its own IndexedDB.
self.addEventListener('message', (e) => {
  const m = e.data || {};
  if (m.type === 'session') e.waitUntil(saveToken(typeof m.token === 'string' ? m.token : ''));
  if (m.type === 'click') {
    e.waitUntil(self.registration.getNotifications({ tag: String(m.tag) }).then((ns) =>
      ns.length ? (ns[0].close(), onClick(ns[0], String(m.action || ''))) : undefined));
  }
});

function db() {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open('askuser', 1);
    r.onupgradeneeded = () => r.result.createObjectStore('kv');
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

async function saveToken(token) {
  const d = await db();
  await new Promise((resolve, reject) => {
    const t = d.transaction('kv', 'readwrite');
    if (token) t.objectStore('kv').put(token, 'token'); else t.objectStore('kv').delete('token');
    t.oncomplete = resolve;
    t.onerror = () => reject(t.error);
  });
  d.close();
}

async function sessionToken() {
  try {
    const d = await db();
    const token = await new Promise((resolve) => {
      const r = d.transaction('kv').objectStore('kv').get('token');
      r.onsuccess = () => resolve(r.result || '');
      r.onerror = () => resolve('');
    });
    d.close();
    return token;
  } catch (_) {
    return '';
  }
}
