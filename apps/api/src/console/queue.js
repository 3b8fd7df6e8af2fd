// The queue: counts per state (tabs), filters, sort, keyset pagination, selection, bulk decisions,
// export links. The filter lives in the URL hash (#/queue?state=…&q=…), so it survives reloads and
// the back button; `cursor` is the opaque keyset cursor of the page shown.
import { api, ApiError, qs, requestId } from './api.js';
import { can, page, session } from './shell.js';
import { badge, clear, docLabel, docName, field, fmtDate, h, miniBar, short, toast, untrusted } from './dom.js';
import { loadReasons, progressLine, undoLast } from './workflow.js';

const STATES = ['NEEDS_REVIEW', 'QUARANTINED', 'RESTORED', 'PURGED'];
const FILTER_KEYS = ['state', 'collection', 'feedbackId', 'judge', 'from', 'to', 'minSuspicion', 'maxSuspicion', 'q', 'decided', 'reason'];
/** Cursors of the pages before the current one (for "previous"), per filter. */
let history = { key: '', cursors: [] };

function filterOf(params) {
  const f = {};
  for (const k of FILTER_KEYS) { const v = params.get(k); if (v) f[k] = v; }
  return f;
}

function go(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  location.hash = `#/queue${u.toString() ? `?${u}` : ''}`;
}

/** The Open tab: the undecided items of the open states (an approved or redacted item is QUARANTINED but decided). */
const OPEN = { state: 'NEEDS_REVIEW,QUARANTINED', decided: 'false' };

export async function renderQueue(view, params, current) {
  const filter = filterOf(params);
  // The queue opens on the Open tab: no state and no decided filter in the URL means the undecided open items.
  if (!filter.state && !filter.decided) Object.assign(filter, OPEN);
  const sort = params.get('sort') || 'risk';
  const cursor = params.get('cursor') || '';
  const limit = Number(params.get('limit')) || 50;
  const fkey = JSON.stringify({ filter, sort, limit });
  if (history.key !== fkey) history = { key: fkey, cursors: [] };
  if (!cursor) history.cursors = [];

  const [data, reasonLabels] = await Promise.all([api('GET', `/v1/review/items${qs({ ...filter, sort, limit, cursor })}`), loadReasons().catch(() => [])]);
  if (!current()) return;
  const items = data.items ?? [];
  session.queueIds = items.map((i) => i.id);
  session.queueHash = location.hash || '#/queue';
  const decide = can('decide');
  const selected = new Set();

  // --- state tabs with counts --------------------------------------------------------------
  const activeStates = (filter.state ?? 'NEEDS_REVIEW,QUARANTINED').split(',');
  // Each state tab lists every item of its state (decided or not); Open lists the undecided open ones.
  const isOpen = filter.state === OPEN.state && filter.decided === OPEN.decided;
  const tab = (label, key, to, active) => h('a', {
    href: `#/queue${qs({ ...filter, decided: undefined, ...to, sort })}`, role: 'tab', class: active ? 'tab active' : 'tab', 'aria-selected': active ? 'true' : 'false', dataset: { state: to.state, tab: key },
  }, label, ' ', h('span', { class: 'count', dataset: { tab: key } }, '—'));
  const tabs = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Item state' },
    tab('Open', 'open', OPEN, isOpen),
    STATES.map((st) => tab(st.replace('_', ' ').toLowerCase(), st, { state: st }, filter.state === st && !filter.decided)));
  /** The tab counts from a list response (`tabs`; `counts` from an older server). */
  const paintCounts = (d) => {
    const c = d.tabs ?? { ...d.counts, open: (d.counts?.NEEDS_REVIEW ?? 0) + (d.counts?.QUARANTINED ?? 0) };
    for (const el of tabs.querySelectorAll('.count')) el.textContent = String(c[el.dataset.tab] ?? '—');
  };
  paintCounts(data);
  // After a decision made here (bulk, undo): the tab counts and the progress line are asked for again, without a reload.
  let progress = progressLine(filter);
  async function refreshCounts() {
    const next = progressLine(filter);
    progress.replaceWith(next);
    progress = next;
    try { paintCounts(await api('GET', `/v1/review/items${qs({ ...filter, sort, limit: 1 })}`)); } catch { /* the counts stay as they were */ }
  }

  // --- filters -------------------------------------------------------------------------------
  const inp = (name, attrs = {}) => h('input', { name, value: filter[name] ?? '', ...attrs });
  const q = inp('q', { type: 'search', placeholder: 'text contains…', id: 'filter-q' });
  const sortSel = h('select', { name: 'sort' }, [['risk', 'risk (suspicion)'], ['age', 'age (oldest first)'], ['newest', 'newest first']].map(([v, l]) => h('option', { value: v, text: l, selected: v === sort })));
  // The states as checkboxes (a text field cut "NEEDS_REVIEW,QUARANTINED" off): joined into state=… on submit.
  const stateBoxes = h('fieldset', { class: 'states', id: 'filter-states' }, h('legend', { text: 'States' }),
    STATES.map((st) => h('label', { class: 'state-box' }, h('input', { type: 'checkbox', name: 'state', value: st, checked: activeStates.includes(st) }), ' ', st.replace('_', ' ').toLowerCase())));
  const form = h('form', { class: 'filters', 'aria-label': 'Filters' },
    field('Text search', q),
    field('Collection', inp('collection')),
    stateBoxes,
    field('Feedback event', inp('feedbackId', { placeholder: 'event id' })),
    field('Judge', inp('judge', { placeholder: 'offline, openai…' })),
    field('Created from', inp('from', { type: 'date' })),
    field('Created before', inp('to', { type: 'date' })),
    field('Suspicion ≥', inp('minSuspicion', { type: 'number', min: 0, max: 1, step: 0.05 })),
    field('Suspicion ≤', inp('maxSuspicion', { type: 'number', min: 0, max: 1, step: 0.05 })),
    field('Decided', h('select', { name: 'decided' }, [['', 'any'], ['false', 'undecided'], ['true', 'decided']].map(([v, l]) => h('option', { value: v, text: l, selected: (filter.decided ?? '') === v })))),
    field('Reason', h('select', { name: 'reason' }, [['', 'any'], ...reasonLabels.map((r) => [r.key, r.label])].map(([v, l]) => h('option', { value: v, text: l, selected: (filter.reason ?? '') === v })))),
    field('Sort', sortSel),
    h('div', { class: 'field buttons' }, h('button', { type: 'submit', class: 'primary', text: 'Apply' }), h('a', { href: '#/queue', class: 'button', text: 'Reset' })));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const fd = new FormData(form);
    const next = {};
    for (const [k, v] of fd.entries()) if (k !== 'state' && typeof v === 'string' && v.trim()) next[k] = v.trim();
    const states = fd.getAll('state').map(String);
    if (states.length) next.state = states.join(',');
    // Unchecking every state means every state (not the default Open view).
    else next.state = STATES.join(',');
    go(next);
  });

  // --- result summary, bulk, export ------------------------------------------------------------
  const exportHref = (what, format) => `/v1/review/export${qs({ what, format, ...filter, sort })}`;
  const selCount = h('span', { class: 'selcount', text: '0 selected' });
  const bulkOut = h('div', { class: 'bulk-result', role: 'status', 'aria-live': 'polite' });
  const confirmBox = h('div', { class: 'confirm', hidden: true, role: 'alertdialog', 'aria-label': 'Confirm bulk decision' });
  const total = data.total ?? items.length;

  function askBulk(action, mode) {
    const ids = [...selected];
    if (mode === 'selected' && !ids.length) { toast('Select items first (x or the checkboxes).', 'error'); return; }
    const n = mode === 'selected' ? ids.length : total;
    clear(confirmBox);
    confirmBox.hidden = false;
    const rid = requestId();
    const yes = h('button', { type: 'button', class: action === 'approve' ? 'danger' : 'primary', id: 'bulk-confirm', text: `Yes, ${action} ${n}` });
    const no = h('button', { type: 'button', text: 'Cancel', on: { click: () => { confirmBox.hidden = true; } } });
    const note = h('input', { type: 'text', name: 'note', maxlength: 2000, placeholder: 'optional note' });
    confirmBox.append(
      h('p', {}, h('strong', { text: `${action === 'approve' ? 'Approve (confirmed poison, kept out of serving)' : 'Restore (served again)'} ${n} item${n === 1 ? '' : 's'}` }),
        mode === 'filter' ? ` — every item matching the current filter, decided on the server (${activeStates.join(', ')})` : ' — the selected items', '?'),
      field('Note', note), yes, ' ', no);
    yes.focus();
    yes.addEventListener('click', async () => {
      yes.disabled = true;
      const body = { action, requestId: rid, ...(note.value.trim() ? { note: note.value.trim() } : {}) };
      if (mode === 'selected') body.ids = ids;
      else body.filter = Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, v]));
      try {
        const r = await api('POST', '/v1/review/bulk', body);
        confirmBox.hidden = true;
        void refreshCounts();
        clear(bulkOut).append(h('p', { class: 'ok', dataset: { matched: r.matched, changed: r.changed, skipped: r.skipped, requestId: r.requestId ?? rid } },
          `Bulk ${action}: matched ${r.matched}, changed ${r.changed}, skipped ${r.skipped}. The counts above are updated; `, ' ', h('a', { href: location.hash, text: 'Reload the queue', on: { click: (ev) => { ev.preventDefault(); renderAgain(); } } })));
      } catch (e) {
        yes.disabled = false;
        clear(bulkOut).append(h('p', { class: 'error', role: 'alert', text: `Bulk ${action} refused (${e.status ?? 'error'}): ${e.message}` }));
      }
    });
  }
  const renderAgain = () => { window.dispatchEvent(new HashChangeEvent('hashchange')); };

  const bulkBar = decide ? h('div', { class: 'bulk', 'aria-label': 'Bulk decisions' },
    selCount,
    h('button', { type: 'button', id: 'bulk-approve-selected', text: 'Approve selected', on: { click: () => askBulk('approve', 'selected') } }),
    h('button', { type: 'button', id: 'bulk-restore-selected', text: 'Restore selected', on: { click: () => askBulk('restore', 'selected') } }),
    h('button', { type: 'button', id: 'bulk-approve-filter', text: `Approve all ${total} matching`, on: { click: () => askBulk('approve', 'filter') } }),
    h('button', { type: 'button', id: 'bulk-restore-filter', text: `Restore all ${total} matching`, on: { click: () => askBulk('restore', 'filter') } })) : null;

  const summary = h('div', { class: 'summary' },
    h('span', { id: 'queue-total', dataset: { total }, text: `${total} matching` }),
    h('span', { class: 'exports' }, 'Export: ',
      h('a', { href: exportHref('queue', 'csv'), download: '', text: 'queue CSV' }), ' · ',
      h('a', { href: exportHref('queue', 'jsonl'), download: '', text: 'queue JSONL' }), ' · ',
      h('a', { href: exportHref('decisions', 'csv'), download: '', text: 'decisions CSV' }), ' · ',
      h('a', { href: exportHref('decisions', 'jsonl'), download: '', text: 'decisions JSONL' })));

  // --- table -----------------------------------------------------------------------------------
  let focus = 0;
  const rows = items.map((it, i) => {
    const box = decide ? h('input', { type: 'checkbox', class: 'sel', 'aria-label': `select ${docLabel(it)}` }) : null;
    box?.addEventListener('change', () => { if (box.checked) selected.add(it.id); else selected.delete(it.id); selCount.textContent = `${selected.size} selected`; });
    const tr = h('tr', { dataset: { id: it.id, state: it.state }, tabindex: '-1' },
      decide ? h('td', {}, box) : null,
      h('td', {}, badge(it.state), it.state === 'NEEDS_REVIEW' && it.servedDuringReview ? h('div', { class: 'muted small', text: 'still served' }) : null,
        it.decision === 'redact' && it.state === 'QUARANTINED' ? h('div', { class: 'muted small', text: 'redacted version served' }) : null, it.decidedBy ? h('div', { class: 'muted small' }, `${it.decision ?? 'decided'} by `, untrusted(short(it.decidedBy, 30))) : null),
      h('td', {}, miniBar(it.suspicion, 'suspicion')),
      h('td', {}, h('a', { href: `#/item/${encodeURIComponent(it.id)}`, class: 'doc' }, docName(it)), h('div', { class: 'muted small' }, untrusted(it.collection))),
      h('td', { class: 'preview' }, untrusted(short(it.textPreview, 160))),
      h('td', {}, h('div', {}, untrusted(short(it.wrongAnswer, 60))), h('div', { class: 'muted small' }, untrusted(short(it.query, 80)))),
      h('td', {}, h('span', { class: `label label-${String(it.judgeLabel ?? '').toLowerCase()}`, text: it.judgeLabel ?? '—' }), h('div', { class: 'muted small' }, untrusted(it.judgeKind ?? ''))),
      h('td', { class: 'small', text: fmtDate(it.createdAt) }),
      h('td', { class: 'small' }, it.claim ? h('span', { class: 'claim' }, untrusted(short(it.claim.by, 24)), ` until ${fmtDate(it.claim.until).slice(11, 16)}`) : ''));
    tr.addEventListener('dblclick', () => { location.hash = `#/item/${encodeURIComponent(it.id)}`; });
    tr.addEventListener('click', () => { focus = i; paintFocus(); });
    return { tr, box, it };
  });
  const paintFocus = () => rows.forEach((r, i) => r.tr.classList.toggle('focused', i === focus));
  const table = h('table', { class: 'queue' },
    h('thead', {}, h('tr', {}, decide ? h('th', { scope: 'col' }, h('span', { class: 'sr', text: 'select' })) : null,
      ['State', 'Suspicion', 'Text (app id · source · service id)', 'Preview', 'Wrong answer / query', 'Judge', 'Created', 'Claim'].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, rows.map((r) => r.tr)));

  // --- pagination --------------------------------------------------------------------------------
  const prevCursor = history.cursors.length ? history.cursors[history.cursors.length - 1] : null;
  const prev = h('button', { type: 'button', id: 'page-prev', text: '← Previous', disabled: !cursor, on: { click: () => { history.cursors.pop(); go({ ...filter, sort, cursor: prevCursor ?? '' }); } } });
  const next = h('button', { type: 'button', id: 'page-next', text: 'Next →', disabled: !data.nextCursor, on: { click: () => { history.cursors.push(cursor); go({ ...filter, sort, cursor: data.nextCursor }); } } });
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages' }, prev, ' ', next, ' ', h('span', { class: 'muted', text: `${items.length} on this page` }));

  const undoOut = h('div', { class: 'undo-result', role: 'status', 'aria-live': 'polite' });
  async function undoMine() {
    try {
      const r = await undoLast();
      clear(undoOut).append(h('p', { class: 'ok', dataset: { undone: r.undid.action, id: r.item.id } }, `Undone: ${r.undid.action} of `, untrusted(docLabel(r.item)), ` — it is ${r.item.state} again.`));
      void refreshCounts();
    } catch (e) {
      clear(undoOut).append(h('p', { class: 'error', dataset: { status: e.status ?? '' }, text: e.status === 409 ? `Undo refused (409): ${e.message}` : e.status === 404 ? `Nothing to undo: ${e.message}` : `Undo failed: ${e.message}` }));
    }
  }
  const undoButton = decide ? h('button', { type: 'button', id: 'undo-last', 'aria-keyshortcuts': 'z', on: { click: undoMine } }, 'Undo my last decision ', h('kbd', { text: 'z' })) : null;

  view.append(
    h('h1', { text: 'Review queue' }),
    h('div', { class: 'progress-row' }, progress, undoButton), undoOut,
    tabs, form, summary, bulkBar, confirmBox, bulkOut,
    items.length ? table : h('p', { class: 'empty muted', text: 'Nothing matches this filter.' }),
    pager,
    h('p', { class: 'shortcuts muted' }, 'Shortcuts: ', h('kbd', { text: 'j' }), '/', h('kbd', { text: 'k' }), ' next/previous · ', h('kbd', { text: 'Enter' }), ' open · ',
      decide ? [h('kbd', { text: 'x' }), ' select · '] : null, h('kbd', { text: '/' }), ' search · ', h('kbd', { text: 'n' }), '/', h('kbd', { text: 'p' }), ' next/previous page · ', h('kbd', { text: '?' }), ' help'));
  view.setAttribute('data-page', 'queue');
  view.dataset.loaded = String(performance.now());
  if (rows.length) paintFocus();

  const move = (d) => { if (!rows.length) return; focus = Math.max(0, Math.min(rows.length - 1, focus + d)); paintFocus(); rows[focus].tr.scrollIntoView({ block: 'nearest' }); };
  page({
    shortcuts: {
      j: { label: 'next row', run: () => move(1) },
      k: { label: 'previous row', run: () => move(-1) },
      Enter: { label: 'open the row', run: () => { if (rows[focus]) location.hash = `#/item/${encodeURIComponent(rows[focus].it.id)}`; } },
      o: { label: 'open the row', run: () => { if (rows[focus]) location.hash = `#/item/${encodeURIComponent(rows[focus].it.id)}`; } },
      ...(decide ? { z: { label: 'undo my last decision', run: undoMine } } : {}),
      ...(decide ? { x: { label: 'select / unselect the row', run: () => { const r = rows[focus]; if (r?.box) { r.box.checked = !r.box.checked; r.box.dispatchEvent(new Event('change')); } } } } : {}),
      '/': { label: 'search', run: () => q.focus() },
      n: { label: 'next page', run: () => { if (!next.disabled) next.click(); } },
      p: { label: 'previous page', run: () => { if (!prev.disabled) prev.click(); } },
    },
  });
}

export { ApiError };
