'use strict';
// The page as an app that notifies (docs/contract.md §12 "Web Push"): it
// registers the service worker (sw.js), offers "Notify me on this device"
// (a Web Push subscription with askuserd's own key, posted to
// /api/push/subscribe; askuserd encrypts every push for this device), hands
// the worker the session so that a notification's action can answer, and
// keeps the app badge. (That the user is here, so that nothing is pushed
// meanwhile, the server tells askuserd on each of the page's actions.)
window.askuserPush = (function () {
  const session = window.askuserSession;
  const supported = 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
  let reg = null;
  let subscribed = false;
  let onChange = function () {};

  async function start(changed) {
    onChange = changed || onChange;
    if (!('serviceWorker' in navigator)) return;
    try {
      reg = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
      await navigator.serviceWorker.ready;
      handToWorker();
      if ('PushManager' in window) subscribed = !!(await reg.pushManager.getSubscription());
    } catch (e) {
      reg = null; // an insecure origin, or a browser that refuses: no push here
    }
    onChange();
  }

  function handToWorker() {
    const w = reg && (reg.active || reg.waiting || reg.installing);
    if (w) w.postMessage({ type: 'session', token: session.token() });
  }

  // state is what the button says: "unsupported" (no push here: a reason
  // is given), "off", "on", or "denied".
  function state() {
    if (!supported || !reg) return window.isSecureContext ? 'unsupported' : 'insecure';
    if (Notification.permission === 'denied') return 'denied';
    return subscribed ? 'on' : 'off';
  }

  function keyBytes(b64) {
    const s = atob(b64.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - b64.length % 4) % 4));
    return Uint8Array.from(s, c => c.charCodeAt(0));
  }

  async function subscribe() {
    if (await Notification.requestPermission() !== 'granted') { onChange(); return 'Notifications are blocked for this page.'; }
    const key = await session.get('/api/push/key');
    if (!key.ok || !key.publicKey) { onChange(); return key.error || 'askuserd gave no push key.'; }
    let sub;
    try {
      sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key.publicKey) });
    } catch (e) {
      onChange();
      return 'This browser could not subscribe: ' + e.message;
    }
    const r = await session.post('/api/push/subscribe', sub.toJSON());
    subscribed = !!r.ok;
    onChange();
    return r.ok ? '' : (r.error || 'askuserd refused the subscription.');
  }

  async function unsubscribe() {
    const sub = reg && await reg.pushManager.getSubscription();
    if (sub) {
      await session.send('DELETE', '/api/push/subscribe', { endpoint: sub.endpoint });
      await sub.unsubscribe().catch(() => {});
    }
    subscribed = false;
    onChange();
    return '';
  }

  function badge(n) {
    if (!navigator.setAppBadge) return;
    (n > 0 ? navigator.setAppBadge(n) : navigator.clearAppBadge()).catch(() => {});
  }

  // requested is the request the address names (?request=ID: a
  // notification's link), taken once.
  function requested() {
    const m = /(?:^\?|&)request=([A-Za-z0-9._:-]{1,128})/.exec(location.search);
    if (m) history.replaceState(null, '', '/' + location.hash);
    return m ? decodeURIComponent(m[1]) : '';
  }

  return { start, state, subscribe, unsubscribe, badge, requested, loggedIn: handToWorker };
})();
