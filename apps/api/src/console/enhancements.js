// Enhancements (GET /v1/enhancements): the benign texts the service serves for a question, and the correct answers
// that wait for a reviewer (PROPOSED: from a feedback token, a service key's suggestion, or a report the consensus
// check suspected; docs/security.md, "Who may write what is served"). Reviewers approve a proposal (it is served from
// then on, for its own question only) or reject it; an active one can be taken out. Every text is shown as text, its
// direction isolated and its invisible characters shown as marks (`untrusted`).
import { api, ApiError, qs } from './api.js';
import { can, page } from './shell.js';
import { clear, field, fmtDate, h, toast, untrusted } from './dom.js';

const STATES = ['PROPOSED', 'ACTIVE', 'DELETED', ''];

export async function renderEnhancements(view, params, current) {
  const state = params.get('state') ?? 'PROPOSED';
  const collection = params.get('collection') ?? '';
  const data = await api('GET', `/v1/enhancements${qs({ state, collection })}`);
  if (!current()) return;
  const items = data.items ?? [];
  const decide = can('decide');
  const rerender = () => { if (current()) void renderEnhancements(view, params, current); };
  const act = async (button, method, path, done) => {
    button.disabled = true;
    try {
      await api(method, path);
      toast(done);
      rerender();
    } catch (err) {
      button.disabled = false;
      toast(err instanceof ApiError ? err.message : String(err), 'error');
    }
  };
  const actions = (e) => {
    if (!decide || e.state === 'DELETED') return h('td', {});
    const approve = e.state === 'PROPOSED'
      ? h('button', { type: 'button', class: 'primary approve', text: 'Approve: serve it', on: { click: (ev) => void act(ev.currentTarget, 'POST', `/v1/enhancements/${e.id}/approve`, 'Approved: served for its question from now on') } })
      : null;
    const remove = h('button', { type: 'button', class: 'reject', text: e.state === 'PROPOSED' ? 'Reject' : 'Take out of serving',
      on: { click: (ev) => void act(ev.currentTarget, 'DELETE', `/v1/enhancements/${e.id}`, e.state === 'PROPOSED' ? 'Rejected' : 'Taken out of serving') } });
    return h('td', {}, approve, approve ? ' ' : null, remove);
  };
  const stateSel = h('select', { name: 'state' }, STATES.map((s) => h('option', { value: s, text: s || 'any', selected: s === state })));
  const coll = h('input', { name: 'collection', value: collection });
  const form = h('form', { class: 'filters', 'aria-label': 'Filters' }, field('State', stateSel), field('Collection', coll),
    h('div', { class: 'field buttons' }, h('button', { type: 'submit', class: 'primary', text: 'Apply' })));
  form.addEventListener('submit', (e) => { e.preventDefault(); location.hash = `#/enhancements${qs({ state: stateSel.value, collection: coll.value.trim() })}`; });
  const table = h('table', { class: 'compact', id: 'enhancements' },
    h('thead', {}, h('tr', {}, ['Created', 'Collection', 'Question', 'Correct answer', 'Benign text served', 'State / why', ''].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, items.map((e) => h('tr', { dataset: { id: e.id, state: e.state } },
      h('td', { class: 'small', text: fmtDate(e.createdAt) }),
      h('td', {}, untrusted(e.collection)),
      h('td', {}, untrusted(e.query)),
      h('td', {}, untrusted(e.correctAnswer, { class: 'answer' })),
      h('td', { class: 'small' }, untrusted(e.benignText)),
      h('td', { class: 'small' }, h('span', { class: `status status-${String(e.state).toLowerCase()}`, text: e.state }), h('div', { class: 'muted' }, untrusted(e.reason ?? '', { class: 'reason' })),
        e.approvedBy ? h('div', { class: 'muted' }, 'approved by ', untrusted(e.approvedBy)) : null),
      actions(e)))));
  clear(view).append(
    h('h1', { text: 'Enhancements' }),
    h('p', { class: 'muted', text: 'A correct answer writes what the RAG serves. Below a reviewer it only goes live under the trust a removal needs; the rest waits here. An approved text is served for its own question only.' }),
    form,
    items.length ? table : h('p', { class: 'muted', text: state === 'PROPOSED' ? 'No correct answers wait for review.' : 'No enhancements.' }));
  view.setAttribute('data-page', 'enhancements');
  page({});
}
