// Collections (GET /v1/collections): each knowledge base with its embedder, registered texts and vetted baseline.
// Admins can vouch for every text registered so far (PUT /v1/collections/:name/vetted-before, {}), in two steps,
// or clear the baseline. A vouched-for text never leaves serving on a report alone (docs/trust.md, "Vetted baseline").
import { api, ApiError } from './api.js';
import { can, page } from './shell.js';
import { clear, fmtDate, h, toast, untrusted } from './dom.js';

export async function renderCollections(view, params, current) {
  const data = await api('GET', '/v1/collections');
  if (!current()) return;
  const items = data.items ?? [];
  const admin = can('manage');
  const rerender = () => { if (current()) void renderCollections(view, params, current); };
  const put = async (name, body, done) => {
    try {
      const r = await api('PUT', `/v1/collections/${encodeURIComponent(name)}/vetted-before`, body);
      toast(r.vettedBefore ? `${name}: ${r.vettedTexts} texts vouched for (registered before ${fmtDate(r.vettedBefore)})` : `${name}: no vetted baseline`);
      rerender();
    } catch (err) {
      toast(err instanceof ApiError ? err.message : String(err), 'error');
      done?.();
    }
  };
  const actions = (c) => {
    if (!admin) return null;
    const vouch = h('button', { type: 'button', class: 'vouch', text: 'Vouch for all texts now…' });
    const confirmBox = h('span', { class: 'confirm', hidden: true },
      h('span', { class: 'small' }, 'Every text of ', untrusted(c.name), ' registered so far will never be taken out of serving by a report alone. '),
      h('button', { type: 'button', class: 'confirm-vouch', text: `Confirm: vouch for ${c.documents} texts`, on: { click: (e) => { e.currentTarget.disabled = true; void put(c.name, {}, () => { e.currentTarget.disabled = false; }); } } }),
      h('button', { type: 'button', class: 'cancel', text: 'Cancel', on: { click: () => { confirmBox.hidden = true; vouch.hidden = false; } } }));
    vouch.addEventListener('click', () => { vouch.hidden = true; confirmBox.hidden = false; });
    const clearBtn = c.vettedBefore ? h('button', { type: 'button', class: 'clear-vetting', text: 'Clear baseline', on: { click: () => void put(c.name, { before: null }) } }) : null;
    return h('td', {}, vouch, confirmBox, clearBtn ? ' ' : null, clearBtn);
  };
  clear(view).append(
    h('h1', { text: 'Collections' }),
    h('p', { class: 'muted', text: 'A collection\'s vetted baseline: texts registered before its cutoff were vouched for by an admin, so a report never takes them out of serving on its own (their YES verdicts wait for review, served). Audits still act on them.' }),
    items.length ? h('table', { class: 'compact', id: 'collections' },
      h('thead', {}, h('tr', {}, ['Name', 'Embedder', 'Texts', 'Vetted baseline', ...(admin ? [''] : [])].map((t) => h('th', { scope: 'col', text: t })))),
      h('tbody', {}, items.map((c) => h('tr', { dataset: { name: c.name } },
        h('td', {}, h('a', { href: `#/queue?collection=${encodeURIComponent(c.name)}` }, untrusted(c.name))),
        h('td', { class: 'small' }, untrusted(c.embedder), ` (${c.dimension})`),
        h('td', { text: String(c.documents) }),
        h('td', { class: 'vetted', text: c.vettedBefore ? `texts registered before ${fmtDate(c.vettedBefore)}` : 'none' }),
        actions(c))))) : h('p', { class: 'muted', text: 'No collections yet: ingest texts first.' }));
  view.setAttribute('data-page', 'collections');
  page({});
}
