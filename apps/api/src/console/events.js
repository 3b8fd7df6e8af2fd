// Feedback events: status, step, verification, verdict counts, items per state, enhancements; each
// links to its items in the queue. The reporter is shown with where its name comes from (self-declared from a token).
import { api, qs } from './api.js';
import { page } from './shell.js';
import { clear, field, fmtDate, h, reporterLabel, short, untrusted } from './dom.js';

const STATUSES = ['', 'RECEIVED', 'QUEUED', 'TRACING', 'TRACED', 'BOUNDED', 'FAILED'];

/**
 * The pipeline step the event last finished, in words. `enhanced` is the name of the last step whether or not it made an
 * enhancement (it runs for every event, and makes one only from a correct answer): shown as such only when it did.
 */
function stepLine(e) {
  if (!e.step) return null;
  const words = e.step === 'enhanced' ? (e.enhancements ? 'enhanced' : 'all steps done (no enhancement)') : e.step;
  return h('div', { class: 'muted small step', dataset: { step: e.step } }, untrusted(words));
}

export async function renderEvents(view, params, current) {
  const status = params.get('status') ?? '';
  const collection = params.get('collection') ?? '';
  const cursor = params.get('cursor') ?? '';
  const data = await api('GET', `/v1/review/events${qs({ status, collection, cursor, limit: 50 })}`);
  if (!current()) return;
  const events = data.events ?? data.items ?? [];
  const statusSel = h('select', { name: 'status' }, STATUSES.map((st) => h('option', { value: st, text: st || 'any', selected: st === status })));
  const coll = h('input', { name: 'collection', value: collection });
  const form = h('form', { class: 'filters', 'aria-label': 'Filters' }, field('Status', statusSel), field('Collection', coll), h('div', { class: 'field buttons' }, h('button', { type: 'submit', class: 'primary', text: 'Apply' })));
  form.addEventListener('submit', (e) => { e.preventDefault(); location.hash = `#/events${qs({ status: statusSel.value, collection: coll.value.trim() })}`; });
  const n = (o, k) => (o && o[k] !== undefined ? o[k] : 0);
  const table = h('table', { class: 'events' },
    h('thead', {}, h('tr', {}, ['Reported', 'Collection', 'Query / wrong answer / reporter', 'Status', 'Verification', 'Verdicts YES / NO / ?', 'Items NR / Q / R / P', 'Enh.', ''].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, events.map((e) => h('tr', { dataset: { id: e.id } },
      h('td', { class: 'small', text: fmtDate(e.createdAt) }),
      h('td', {}, untrusted(e.collection ?? '')),
      h('td', {}, h('div', {}, untrusted(short(e.query, 90))), h('div', { class: 'muted small' }, untrusted(short(e.wrongAnswer, 60))),
        e.reporter ? h('div', { class: 'muted small' }, 'reported by ', reporterLabel(short(e.reporter, 60), e.reporterKind)) : null),
      h('td', {}, h('span', { class: `status status-${String(e.status).toLowerCase()}`, text: e.status }), stepLine(e)),
      h('td', { class: 'small', text: e.verification ? (typeof e.verification === 'string' ? e.verification : e.verification.status ?? JSON.stringify(e.verification)) : '—' }),
      h('td', { text: `${n(e.verdicts, 'YES')} / ${n(e.verdicts, 'NO')} / ${n(e.verdicts, 'UNDETERMINED')}` }),
      h('td', { text: `${n(e.items, 'NEEDS_REVIEW')} / ${n(e.items, 'QUARANTINED')} / ${n(e.items, 'RESTORED')} / ${n(e.items, 'PURGED')}` }),
      h('td', { text: e.enhancements ?? 0 }),
      h('td', {}, h('a', { href: `#/queue${qs({ feedbackId: e.id, state: 'NEEDS_REVIEW,QUARANTINED,RESTORED,PURGED' })}`, text: 'items →' }))))));
  const next = data.nextCursor ? h('a', { class: 'button', href: `#/events${qs({ status, collection, cursor: data.nextCursor })}`, text: 'Next →' }) : null;
  clear(view).append(h('h1', { text: 'Feedback events' }), form, events.length ? table : h('p', { class: 'muted', text: 'No events.' }),
    h('nav', { class: 'pager', 'aria-label': 'Pages' }, cursor ? h('a', { class: 'button', href: '#/events', text: '↩ First page' }) : null, ' ', next));
  view.setAttribute('data-page', 'events');
  page({});
}
