// Database audits (GET /v1/audits…): runs with status and progress bars (refreshed while any runs),
// one run's counts and findings with links to the review items they created; admins can start a run.
import { api, ApiError, qs } from './api.js';
import { can, page } from './shell.js';
import { badge, clear, fmtDate, field, h, jsonPre, short, toast, untrusted } from './dom.js';

const KINDS = ['reconcile', 'cluster-scan', 'sibling-sweep', 're-trace'];
const ACTIVE = new Set(['QUEUED', 'RUNNING']);

function progressOf(run) {
  const p = run.progress ?? {};
  const total = p.total ?? 0;
  const pct = total > 0 ? Math.round((100 * (p.done ?? 0)) / total) : run.status === 'SUCCEEDED' ? 100 : 0;
  return h('span', { class: 'progress-wrap' },
    h('progress', { max: 100, value: pct, 'aria-label': `progress ${pct}%` }),
    h('span', { class: 'small muted', text: ` ${p.done ?? 0}/${p.total ?? '?'} ${p.phase ?? ''}` }));
}

function countsText(counts) {
  return Object.entries(counts ?? {}).filter(([, v]) => v).map(([k, v]) => `${k} ${v}`).join(', ');
}

export async function renderAudits(view, params, current) {
  const id = params.get('id');
  if (id) return renderRun(view, id, current);
  const data = await api('GET', `/v1/audits${qs({ limit: 50, before: params.get('before') ?? '' })}`);
  if (!current()) return;
  const items = data.items ?? [];
  const form = can('manage') ? startForm() : null;
  clear(view).append(
    h('h1', { text: 'Audits' }),
    h('p', { class: 'muted', text: 'Scheduled and on-demand database audits. Findings never quarantine by themselves: texts go to the review queue with their evidence.' }),
    form,
    items.length ? h('table', { class: 'compact', id: 'audit-runs' },
      h('thead', {}, h('tr', {}, ['Started', 'Kind', 'Collection', 'Status', 'Progress', 'Findings', 'Counts', 'By'].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, items.map((r) => h('tr', { dataset: { id: r.id } },
        h('td', { class: 'small' }, h('a', { href: `#/audits${qs({ id: r.id })}`, text: fmtDate(r.createdAt) })),
        h('td', { text: r.kind }), h('td', {}, untrusted(r.collection)), h('td', {}, badge(r.status)), h('td', {}, progressOf(r)),
        h('td', { text: String(r.findingsCount ?? 0) }), h('td', { class: 'small', text: short(countsText(r.counts), 120) }), h('td', { class: 'small' }, untrusted(short(r.startedBy, 40))))))) : h('p', { class: 'muted', text: 'No audit runs yet.' }),
    data.next ? h('a', { class: 'button', href: `#/audits${qs({ before: data.next })}`, text: 'Older →' }) : null);
  view.setAttribute('data-page', 'audits');
  const timer = items.some((r) => ACTIVE.has(r.status)) ? setTimeout(() => { if (current()) void renderAudits(view, params, current); }, 2000) : null;
  page({ onLeave: () => timer && clearTimeout(timer) });
}

function startForm() {
  const kind = h('select', { name: 'kind' }, KINDS.map((k) => h('option', { value: k, text: k })));
  const collection = h('input', { name: 'collection', placeholder: 'default collection', autocomplete: 'off' });
  const submit = h('button', { type: 'submit', text: 'Start audit' });
  return h('form', {
    class: 'inline-form', id: 'start-audit',
    on: {
      submit: async (e) => {
        e.preventDefault();
        submit.disabled = true;
        try {
          const run = await api('POST', '/v1/audits', { kind: kind.value, ...(collection.value.trim() ? { collection: collection.value.trim() } : {}) });
          toast(`Started ${run.kind} on ${run.collection}`); // toast: text, its invisible characters as marks
          location.hash = `#/audits${qs({ id: run.id })}`;
        } catch (err) {
          toast(err instanceof ApiError ? err.message : String(err), 'error');
        } finally { submit.disabled = false; }
      },
    },
  }, field('Kind', kind), field('Collection', collection), submit);
}

async function renderRun(view, id, current) {
  const run = await api('GET', `/v1/audits/${encodeURIComponent(id)}`);
  const findings = await api('GET', `/v1/audits/${encodeURIComponent(id)}/findings${qs({ limit: 200 })}`);
  if (!current()) return;
  const cancel = can('manage') && ACTIVE.has(run.status)
    ? h('button', { type: 'button', text: 'Cancel run', on: { click: async () => { try { await api('POST', `/v1/audits/${encodeURIComponent(id)}/cancel`, {}); toast('Cancel requested'); } catch (err) { toast(err.message, 'error'); } } } })
    : null;
  clear(view).append(
    h('p', {}, h('a', { href: '#/audits', text: '← all audits' })),
    h('h1', {}, `${run.kind} · `, untrusted(run.collection)),
    h('dl', { class: 'facts' },
      h('dt', { text: 'Status' }), h('dd', {}, badge(run.status), ' ', progressOf(run)),
      h('dt', { text: 'Started by' }), h('dd', {}, untrusted(run.startedBy), ` (${run.trigger})`),
      h('dt', { text: 'Created / finished' }), h('dd', { text: `${fmtDate(run.createdAt)} / ${run.finishedAt ? fmtDate(run.finishedAt) : '—'}` }),
      run.error ? [h('dt', { text: 'Error' }), h('dd', {}, h('pre', { text: run.error }))] : null,
      h('dt', { text: 'Counts' }), h('dd', {}, jsonPre(run.counts)),
      h('dt', { text: 'Parameters' }), h('dd', {}, jsonPre(run.params))),
    cancel,
    h('h2', { text: `Findings (${run.findingsCount})` }),
    (findings.items ?? []).length ? h('table', { class: 'compact', id: 'audit-findings' },
      h('thead', {}, h('tr', {}, ['Type', 'Action', 'Texts', 'Score', 'Review items', 'Detail'].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, findings.items.map((f) => h('tr', {},
        h('td', {}, untrusted(f.type)), h('td', {}, badge(f.action)), h('td', { class: 'small' }, untrusted((f.documentIds ?? []).map((d) => short(d, 8)).join(' ') || '—')),
        h('td', { text: f.score === null || f.score === undefined ? '—' : Number(f.score).toFixed(3) }),
        h('td', {}, (f.quarantineIds ?? []).map((q) => h('a', { href: `#/item/${encodeURIComponent(q)}`, class: 'small', text: `${short(q, 8)} ` }))),
        h('td', {}, h('details', {}, h('summary', { text: 'evidence' }), jsonPre(f.detail))))))) : h('p', { class: 'muted', text: 'No findings.' }));
  view.setAttribute('data-page', 'audit-run');
  const timer = ACTIVE.has(run.status) ? setTimeout(() => { if (current()) void renderRun(view, id, current); }, 2000) : null;
  page({ onLeave: () => timer && clearTimeout(timer) });
}
