'use strict';
// The secret comes in the address's fragment (#s=…), which the browser never
// sends: it is exchanged here, once, for a session cookie, and leaves the
// address bar.
(function () {
  const status = document.getElementById('login-status');
  const m = /(?:^#|&)s=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (!m) {
    // Opened from another site (a push notification's link): a SameSite=Strict
    // cookie is not sent with that first request, but is with this page's own.
    fetch('/api/session', { credentials: 'same-origin', cache: 'no-store' })
      .then(r => { if (r.ok) location.reload(); })
      .catch(() => {});
    return;
  }
  history.replaceState(null, '', '/');
  status.textContent = 'Logging in…';
  fetch('/login', {
    method: 'POST', credentials: 'same-origin', cache: 'no-store',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ secret: m[1] }),
  }).then(r => {
    if (r.ok) { location.replace('/'); return; }
    status.textContent = 'That secret is not valid (it may have been rotated with askuserd web --rotate).';
  }).catch(() => { status.textContent = 'Could not reach askuserd web.'; });
})();
