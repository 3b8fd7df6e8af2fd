// The audit log, newest first, filterable by actor, action, entity id, text and date.
import { api, qs } from './api.js';
import { page } from './shell.js';
import { clear, field, fmtDate, h, jsonPre, short, untrusted } from './dom.js';

const KEYS = ['actor', 'action', 'entityId', 'q', 'reason', 'from', 'to'];

export async function renderAudit(view, params, current) {
  const f = Object.fromEntries(KEYS.map((k) => [k, params.get(k) ?? '']));
  const cursor = params.get('cursor') ?? '';
  const data = await api('GET', `/v1/review/audit-log${qs({ ...f, cursor, limit: 100 })}`);
  if (!current()) return;
  const entries = data.entries ?? data.items ?? [];
  const inputs = Object.fromEntries(KEYS.map((k) => [k, h('input', { name: k, value: f[k], type: k === 'from' || k === 'to' ? 'date' : 'text' })]));
  const form = h('form', { class: 'filters', 'aria-label': 'Filters' },
    field('Actor', inputs.actor), field('Action', inputs.action, 'e.g. quarantine.restored'), field('Text / document / record id', inputs.entityId), field('Search', inputs.q), field('Reason (key)', inputs.reason),
    field('From', inputs.from), field('Before', inputs.to), h('div', { class: 'field buttons' }, h('button', { type: 'submit', class: 'primary', text: 'Apply' }), h('a', { class: 'button', href: '#/audit', text: 'Reset' })));
  form.addEventListener('submit', (e) => { e.preventDefault(); location.hash = `#/audit${qs(Object.fromEntries(KEYS.map((k) => [k, inputs[k].value.trim()])))}`; });
  const table = h('table', { class: 'audit' },
    h('thead', {}, h('tr', {}, ['When', 'Actor', 'Action', 'Entity', 'Details'].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, entries.map((a) => h('tr', { dataset: { id: a.id } },
      h('td', { class: 'small', text: fmtDate(a.at) }),
      h('td', {}, h('a', { href: `#/audit${qs({ actor: a.actor })}` }, untrusted(short(a.actor, 50)))),
      h('td', {}, h('a', { href: `#/audit${qs({ action: a.action })}` }, untrusted(a.action))),
      h('td', {}, h('div', { class: 'muted small' }, untrusted(a.entityType ?? '')), h('a', { href: `#/audit${qs({ entityId: a.entityId })}` }, untrusted(short(a.entityId, 40)))),
      h('td', {}, a.details ? jsonPre(a.details) : '')))));
  const next = data.nextCursor ? h('a', { class: 'button', href: `#/audit${qs({ ...f, cursor: data.nextCursor })}`, text: 'Older →' }) : null;
  clear(view).append(h('h1', { text: 'Audit log' }), form, entries.length ? table : h('p', { class: 'muted', text: 'No entries.' }),
    h('nav', { class: 'pager', 'aria-label': 'Pages' }, cursor ? h('a', { class: 'button', href: `#/audit${qs(f)}`, text: '↩ Newest' }) : null, ' ', next));
  view.setAttribute('data-page', 'audit');
  page({});
}
