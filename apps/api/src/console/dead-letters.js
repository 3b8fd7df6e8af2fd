// Dead letters (GET /v1/dead-letters): feedback events that ended FAILED and failed queue jobs,
// read-only (re-driving them is POST /v1/dead-letters/redrive, for admins, through the API).
import { api, qs } from './api.js';
import { page } from './shell.js';
import { clear, fmtDate, h, short, untrusted } from './dom.js';

export async function renderDeadLetters(view, params, current) {
  const eventsCursor = params.get('eventsCursor') ?? '';
  const jobsCursor = params.get('jobsCursor') ?? '';
  const data = await api('GET', `/v1/dead-letters${qs({ eventsCursor, jobsCursor, limit: 50 })}`);
  if (!current()) return;
  const events = data.events ?? [];
  const jobs = data.jobs ?? [];
  const counts = data.failedJobCounts ?? {};
  clear(view).append(
    h('h1', { text: 'Dead letters' }),
    h('h2', { text: `Failed feedback events (${events.length}${data.nextEventsCursor ? '+' : ''})` }),
    events.length ? h('table', { class: 'compact' },
      h('thead', {}, h('tr', {}, ['Failed', 'Collection', 'Query', 'Step', 'Attempts', 'Reason', ''].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, events.map((e) => h('tr', { dataset: { id: e.feedbackId } },
        h('td', { class: 'small', text: fmtDate(e.failedAt) }), h('td', {}, untrusted(e.collection)), h('td', {}, untrusted(short(e.query, 80))),
        h('td', {}, untrusted(e.step ?? '—')), h('td', { text: e.attempts ?? '—' }),
        h('td', {}, h('pre', { text: e.failureReason ?? '' }), e.failureDetailsWithheld ? h('div', { class: 'muted small', text: 'details withheld (admins see the full reason)' }) : null),
        h('td', {}, h('a', { href: `#/audit${qs({ entityId: e.feedbackId })}`, text: 'history →' })))))) : h('p', { class: 'muted', text: 'None.' }),
    data.nextEventsCursor ? h('a', { class: 'button', href: `#/dead-letters${qs({ eventsCursor: data.nextEventsCursor, jobsCursor })}`, text: 'More events →' }) : null,
    h('h2', { text: `Failed jobs (${Object.entries(counts).map(([q, n]) => `${q}: ${n}`).join(', ') || jobs.length})` }),
    jobs.length ? h('table', { class: 'compact' },
      h('thead', {}, h('tr', {}, ['Queue', 'Job', 'Attempts', 'Reason'].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, jobs.map((j) => h('tr', {}, h('td', {}, untrusted(j.queue)), h('td', {}, untrusted(j.name), ' ', untrusted(short(j.id, 40))), h('td', { text: j.attemptsMade ?? '—' }), h('td', {}, h('pre', { text: short(j.failedReason, 400) })))))) : h('p', { class: 'muted', text: 'None.' }),
    data.nextJobsCursor ? h('a', { class: 'button', href: `#/dead-letters${qs({ eventsCursor, jobsCursor: data.nextJobsCursor })}`, text: 'More jobs →' }) : null);
  view.setAttribute('data-page', 'dead-letters');
  page({});
}
