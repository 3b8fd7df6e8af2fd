// The review console: a hash router over plain DOM modules (no build step). Pages: login, queue,
// item, events, audit log. Keyboard-first: every page registers its shortcuts, `?` lists them.
import { api, ApiError, onUnauthorized, setCsrf } from './api.js';
import { clear, h, toast, untrusted } from './dom.js';
import { renderLogin } from './login.js';
import { renderQueue } from './queue.js';
import { renderItem } from './item.js';
import { renderEvents } from './events.js';
import { renderAudit } from './audit.js';
import { renderDeadLetters } from './dead-letters.js';
import { renderAudits } from './audits.js';
import { renderCollections } from './collections.js';
import { renderEnhancements } from './enhancements.js';
import { leavePage, pageKeys, session } from './shell.js';

// session, can and page live in shell.js (the pages import them from there); re-exported for callers of app.js.
export { can, page, session } from './shell.js';

const main = document.getElementById('main');

const GLOBAL_KEYS = { '?': 'show / hide this help', 'g q': 'queue', 'g e': 'events', 'g l': 'audit log' };

function showHelp() {
  const existing = document.getElementById('help');
  if (existing) { existing.remove(); return; }
  const rows = [...Object.entries(pageKeys()).map(([k, v]) => [k, v.label]), ...Object.entries(GLOBAL_KEYS)];
  const box = h('section', { id: 'help', class: 'help', role: 'dialog', 'aria-label': 'Keyboard shortcuts', tabindex: '-1' },
    h('h2', { text: 'Keyboard shortcuts' }),
    h('table', {}, h('tbody', {}, rows.map(([k, label]) => h('tr', {}, h('th', {}, h('kbd', { text: k })), h('td', { text: label }))))),
    h('button', { type: 'button', text: 'Close (Esc)', on: { click: () => box.remove() } }));
  document.body.appendChild(box);
  box.focus();
}

let pendingG = false;
document.addEventListener('keydown', (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  const typing = t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));
  if (e.key === 'Escape') {
    const help = document.getElementById('help');
    if (help) { help.remove(); return; }
    if (typing) { t.blur(); return; }
  }
  if (typing || !session.me) return;
  if (pendingG) {
    pendingG = false;
    const to = { q: '#/queue', e: '#/events', l: '#/audit' }[e.key];
    if (to) { e.preventDefault(); location.hash = to; }
    return;
  }
  if (e.key === 'g') { pendingG = true; setTimeout(() => { pendingG = false; }, 1200); return; }
  if (e.key === '?') { e.preventDefault(); showHelp(); return; }
  const k = pageKeys()[e.key];
  if (k) { e.preventDefault(); k.run(e); }
});

function renderWho() {
  const who = clear(document.getElementById('who'));
  const nav = document.getElementById('nav');
  if (!session.me) { nav.hidden = true; return; }
  nav.hidden = false;
  who.append(
    untrusted(session.me.name, { class: 'whoami' }), ' ',
    h('span', { class: `role role-${session.me.role ?? 'service'}`, 'data-role': session.me.role ?? '', text: session.me.role ?? 'service' }), ' ',
    h('button', { type: 'button', class: 'link', id: 'logout', text: 'Log out', on: { click: logout } }));
}

async function logout() {
  try { await api('DELETE', '/v1/session'); } catch (e) { if (!(e instanceof ApiError && e.status === 401)) toast(`Log out failed: ${e.message}`, 'error'); }
  session.me = null;
  setCsrf(null);
  renderWho();
  location.hash = '#/login';
  route();
}

export async function loadMe() {
  try {
    session.me = await api('GET', '/v1/session/me', undefined, { quiet401: true });
    setCsrf(session.me.csrfToken);
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 401) throw e;
    session.me = null;
  }
  renderWho();
  return session.me;
}

onUnauthorized(() => {
  if (!session.me) return;
  session.me = null;
  setCsrf(null);
  renderWho();
  toast('Your session ended (expired or logged out). Log in again.', 'error');
  route();
});

/** Parses `#/path/a?x=1` into {parts: ['path','a'], params: URLSearchParams}. */
function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, query = ''] = raw.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}

let routeSeq = 0;
export async function route() {
  const seq = ++routeSeq;
  leavePage();
  document.getElementById('help')?.remove();
  const { parts, params } = parseHash();
  const view = clear(main);
  if (!session.me) {
    renderLogin(view, async () => { await loadMe(); if (location.hash.startsWith('#/login') || !location.hash) location.hash = '#/queue'; else route(); });
    return;
  }
  const name = parts[0] ?? 'queue';
  for (const a of document.querySelectorAll('[data-nav]')) a.setAttribute('aria-current', a.dataset.nav === name || (name === 'item' && a.dataset.nav === 'queue') ? 'page' : 'false');
  try {
    if (name === 'item' && parts[1]) await renderItem(view, parts[1], () => seq === routeSeq);
    else if (name === 'events') await renderEvents(view, params, () => seq === routeSeq);
    else if (name === 'audit') await renderAudit(view, params, () => seq === routeSeq);
    else if (name === 'dead-letters') await renderDeadLetters(view, params, () => seq === routeSeq);
    else if (name === 'audits') await renderAudits(view, params, () => seq === routeSeq);
    else if (name === 'collections') await renderCollections(view, params, () => seq === routeSeq);
    else if (name === 'enhancements') await renderEnhancements(view, params, () => seq === routeSeq);
    else if (name === 'login') { location.hash = '#/queue'; return; }
    else await renderQueue(view, params, () => seq === routeSeq);
  } catch (e) {
    if (seq !== routeSeq) return;
    if (e instanceof ApiError && e.status === 401) return; // the login page is shown
    clear(view).append(h('p', { class: 'error', role: 'alert', text: `Could not load this page: ${e.message}` }));
  }
}

window.addEventListener('hashchange', route);
(async () => {
  try { await loadMe(); } catch (e) { clear(main).append(h('p', { class: 'error', role: 'alert', text: `The API is not reachable: ${e.message}` })); return; }
  await route();
})();
