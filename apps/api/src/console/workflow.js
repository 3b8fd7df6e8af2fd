// The reviewer's workflow helpers shared by the queue and item pages (issue 35): the configured
// reason labels, the progress line (decided by me / the team today, left in this filter), the queue
// filter the item page works within, and "undo my last decision".
import { api, qs } from './api.js';
import { h, visible } from './dom.js';

const FILTER_KEYS = ['state', 'collection', 'feedbackId', 'judge', 'from', 'to', 'minSuspicion', 'maxSuspicion', 'q', 'decided', 'reason'];

let reasonsCache = null;
/** The configured reason labels [{key, label, shortcut}], fetched once per page load. */
export async function loadReasons() {
  if (!reasonsCache) reasonsCache = api('GET', '/v1/review/reasons').then((r) => r.reasons ?? []).catch((e) => { reasonsCache = null; throw e; });
  return reasonsCache;
}

/** The filter and sort of a queue hash (#/queue?state=…&sort=…). */
export function queueFilterOf(hash) {
  const params = new URLSearchParams((hash.split('?')[1] ?? ''));
  const filter = {};
  for (const k of FILTER_KEYS) { const v = params.get(k); if (v) filter[k] = v; }
  return { filter, sort: params.get('sort') || 'risk' };
}

/** The reviewer's local midnight (the start of "today"), as an ISO date-time. */
export function localMidnight() {
  const d = new Date();
  d.setHours(0, 0, 0, 0);
  return d.toISOString();
}

/** The progress line for a filter: filled in when the counts arrive (never blocks the page). */
export function progressLine(filter) {
  const line = h('p', { class: 'progress', id: 'progress', role: 'status', 'aria-live': 'polite', text: 'Progress: …' });
  api('GET', `/v1/review/progress${qs({ ...filter, since: localMidnight() })}`).then((p) => {
    line.textContent = '';
    line.dataset.mine = String(p.decidedByMe);
    line.dataset.left = String(p.left);
    line.dataset.team = String(p.decidedByTeam);
    line.append(
      h('span', { class: 'stat', id: 'progress-mine' }, h('strong', { text: String(p.decidedByMe) }), ' decided by me today'), ' · ',
      h('span', { class: 'stat', id: 'progress-left' }, h('strong', { text: String(p.left) }), ' left in this filter', p.leftForMe !== p.left ? ` (${p.leftForMe} I can decide now)` : ''), ' · ',
      h('span', { class: 'stat', id: 'progress-team' }, h('strong', { text: String(p.decidedByTeam) }), ` decided by the team today (${p.reviewersToday} reviewer${p.reviewersToday === 1 ? '' : 's'})`));
  }).catch((e) => { line.textContent = visible(`Progress unavailable: ${e.message}`); });
  return line;
}

/** POST /v1/review/undo (of one item when `id` is given); resolves to {item, undid}. */
export function undoLast(id) {
  return api('POST', '/v1/review/undo', id ? { id } : {});
}
