// One item: the text with the claim span(s) and the wrong answer highlighted, the feedback event, the judge's reply, the
// evidence as bars against the event's other candidates, policy inputs, siblings, near-duplicates,
// history and earlier decisions; decisions (approve / restore / purge with typed confirmation) and
// the claim (taken on open, renewed every minute, released on leave).
import { api, ApiError, qs } from './api.js';
import { can, page, session } from './shell.js';
import { badge, clear, docLabel, docName, field, fmtDate, fmtNum, h, highlighted, kvList, miniBar, reporterLabel, s, short, sourceOf, toast, untrusted } from './dom.js';
import { loadReasons, progressLine, queueFilterOf, undoLast } from './workflow.js';
import { whyFlagged } from './why.js';

const RENEW_MS = 60_000;
/** How long the undo bar stays after a decision (after that: "undo my last decision" on the queue page, or z). */
const UNDO_BAR_MS = 8000;
/** The next decidable item's detail, fetched while the current one is on screen (id → promise); used once, then dropped. */
const prefetched = new Map();
const PREFETCH_MAX_AGE_MS = 30_000;

const sus = (v) => (v === null || v === undefined ? null : typeof v === 'number' ? v : v.suspicion ?? null);
/** Raw values of a signal as short text ("score=0.42, rank=1"); null when none. */
const raw = (v) => {
  const r = v === null || v === undefined || typeof v !== 'object' ? null : v.raw;
  if (r === null || r === undefined) return null;
  if (typeof r !== 'object') return fmtNum(r);
  const parts = Object.entries(r).filter(([, x]) => typeof x === 'number' || typeof x === 'string' || typeof x === 'boolean').slice(0, 4).map(([k, x]) => `${k}=${typeof x === 'number' ? fmtNum(x) : x}`);
  return parts.length ? parts.join(', ') : null;
};
const skipped = (v) => (v && typeof v === 'object' && v.skipped ? String(v.skipped) : null);

/** The text with the spans replaced by the redaction marker, as the redacted version would read. */
function redactedPreview(text, spans) {
  let out = '';
  let at = 0;
  for (const sp of [...spans].sort((a, b) => a.start - b.start)) {
    if (sp.start < at) continue;
    out += `${text.slice(at, sp.start)}[…]`;
    at = sp.end;
  }
  return (out + text.slice(at)).replace(/(\[…\]\s*)+/g, '[…] ').trim();
}

// Words that carry nothing of a text's own: a redacted text holding only these and the question's words says nothing.
const FILLER = new Set('a an the of to in on at by for and or but is are was were be been it its this that these those as with from what which who whom whose when where why how do does did'.split(' '));
const wordsOf = (t) => (t.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !FILLER.has(w));

/** True when redacting `spans` would leave nothing served but the question (its words, filler and punctuation). */
function onlyQuestionLeft(text, spans, query) {
  const asked = new Set(wordsOf(query));
  return wordsOf(redactedPreview(text, spans).replace(/\[…\]/g, ' ')).every((w) => asked.has(w));
}

/** What serving does with the item's text now, in words (a RESTORED or decided item is not "awaiting review"). */
function servingText(x, redaction) {
  if (x.state === 'NEEDS_REVIEW') return x.servedDuringReview ? ['served', 'still served while it awaits review'] : ['held', 'held out of serving while it awaits review'];
  if (x.state === 'QUARANTINED') return x.decision === 'redact' || redaction?.served ? ['redacted', 'out of serving; its redacted version is served instead'] : ['out', x.decision ? 'out of serving (decided)' : 'out of serving while it awaits review'];
  if (x.state === 'RESTORED') return ['served', 'served again'];
  if (x.state === 'PURGED') return ['purged', 'purged: removed from serving for good'];
  return ['', ''];
}

function dl(pairs) {
  return h('dl', { class: 'kv' }, pairs.filter(Boolean).map(([k, v]) => [h('dt', { text: k }), h('dd', {}, v instanceof Node ? v : String(v ?? '—'))]));
}

/** One measure (BiRD, GRADA, ProGRank, combined) as bars: this text against the event's candidates. */
function evidenceChart(title, key, detail) {
  const me = detail.item.documentId;
  const cands = [...(detail.evidence?.candidates ?? [])];
  const thisText = detail.evidence?.thisText ?? {};
  if (!cands.some((c) => c.documentId === me)) cands.push({ documentId: me, label: detail.verdict?.label, quarantined: true, ...thisText });
  // Each bar is labelled with the app's id of its text (its externalId), the service's UUID only where the app gave none.
  const named = (c) => (c.documentId === me ? { ...c, externalId: detail.item.externalId, metadata: detail.item.metadata } : c);
  const row = (c) => ({ id: c.documentId, ext: c.externalId ?? null, source: sourceOf(c.metadata)?.value ?? null, label: c.label, quarantined: !!c.quarantined, s: sus(c[key]), r: raw(c[key]), skip: skipped(c[key]), me: c.documentId === me });
  const rows = cands.map(named).map(row).sort((a, b) => (b.s ?? -1) - (a.s ?? -1)).slice(0, 12);
  if (!rows.some((r) => r.me)) rows.push(row(named(cands.find((c) => c.documentId === me))));
  if (rows.every((r) => r.s === null)) {
    const why = rows.find((r) => r.me)?.skip ?? rows.find((r) => r.skip)?.skip;
    return h('figure', { class: 'chart', dataset: { measure: key } }, h('figcaption', { text: `${title}: not computed for this event${why ? ` (${why})` : ''}` }));
  }
  const W = 150, ROW = 16, LABEL = 130, NUM = 70;
  const height = rows.length * ROW + 4;
  const svg = s('svg', { width: LABEL + W + NUM, height, viewBox: `0 0 ${LABEL + W + NUM} ${height}`, role: 'img', 'aria-label': `${title} suspicion of this text and the event's other candidates`, class: 'bars' });
  rows.forEach((r, i) => {
    const y = i * ROW + 2;
    const cls = r.me ? 'me' : r.quarantined ? 'quarantined' : 'other';
    const g = s('g', { class: `row ${cls}`, dataset: { doc: r.id } },
      s('title', { text: `${r.ext ? `${r.ext} · ` : ''}${r.source ? `${r.source} · ` : ''}${r.id}${r.me ? ' (this text)' : ''}: suspicion ${fmtNum(r.s)}${r.r !== null ? `; raw ${r.r}` : ''}${r.skip ? `; skipped: ${r.skip}` : ''}${r.label ? `; judge ${r.label}` : ''}` }),
      s('text', { x: 0, y: y + 11, class: 'lbl', dataset: { externalId: r.ext ?? '' }, text: `${r.me ? '▶ ' : ''}${short(r.ext ?? r.id, r.me ? 17 : 19)}` }),
      s('rect', { x: LABEL, y: y + 2, width: W, height: ROW - 5, class: 'track' }),
      s('rect', { x: LABEL, y: y + 2, width: ((r.s ?? 0) * W).toFixed(1), height: ROW - 5, class: `fill ${cls}` }),
      s('text', { x: LABEL + W + 4, y: y + 11, class: 'val', text: `${fmtNum(r.s, 2)}${r.label ? ` ${r.label}` : ''}` }));
    svg.appendChild(g);
  });
  const mine = rows.find((r) => r.me);
  return h('figure', { class: 'chart', dataset: { measure: key } },
    h('figcaption', {}, h('strong', { text: title }), ` — this text: suspicion ${fmtNum(mine?.s, 2)}`, mine?.r ? h('div', { class: 'muted small raw', text: `raw: ${mine.r}` }) : null, mine?.skip ? h('div', { class: 'muted small', text: `skipped: ${mine.skip}` }) : null), svg);
}

function itemTable(items) {
  return h('table', { class: 'compact' }, h('thead', {}, h('tr', {}, ['State', 'Text (app id · source · service id)', 'Text', 'Suspicion'].map((t) => h('th', { scope: 'col', text: t })))),
    h('tbody', {}, items.map((it) => h('tr', { dataset: { id: it.id } },
      h('td', {}, badge(it.state)),
      h('td', {}, h('a', { href: `#/item/${encodeURIComponent(it.id)}`, class: 'doc' }, docName(it))),
      h('td', { class: 'preview' }, untrusted(short(it.textPreview, 140))),
      h('td', {}, miniBar(it.suspicion, 'suspicion'))))));
}

/** Plain labels of the policy inputs (others: their key in words). */
const POLICY_LABELS = {
  label: 'judge label', yes: 'YES verdicts', no: 'NO verdicts', combined: 'combined suspicion', suspicion: 'suspicion', threshold: 'threshold',
  trust: 'reporter trust', caps: 'caps', remembered: 'remembered decision', held: 'held for review', capped: 'capped',
};
/** Plain labels of audit details (others: their key in words). */
const HISTORY_LABELS = { documentId: 'text (service id)', prev: 'before', from: 'from', to: 'to', withdrewRedaction: 'withdrew redaction', overrodeClaimOf: 'overrode the claim of', requestId: 'bulk request' };

/** "Why flagged": one plain line per reason, from the verdict's signals; the signals no line explains as rows below. */
function whyList(v, policy, it) {
  const { lines, other } = whyFlagged(v, policy, it);
  return h('div', { class: 'why', id: 'why' },
    h('h3', { text: 'Why flagged' }),
    lines.length ? h('ul', { id: 'why-list' }, lines.map((l) => h('li', {}, untrusted(l)))) : h('p', { class: 'muted', text: 'The judge gave no signals for this verdict.' }),
    other.length ? h('details', { class: 'signals' }, h('summary', { text: `Other signals (${other.length})` }), kvList(Object.fromEntries(other), {}, { id: 'other-signals' })) : null);
}

export async function renderItem(view, id, current) {
  const decide = can('decide');
  const purge = can('purge');
  let claimTimer = null;
  let holdClaim = false;
  let left = false;

  const claimLine = h('p', { class: 'claimline', id: 'claim', role: 'status', 'aria-live': 'polite' });
  const outcome = h('div', { id: 'decision-outcome', role: 'alert', 'aria-live': 'assertive' });

  async function claim() {
    if (!decide || left) return;
    try {
      const r = await api('POST', `/v1/review/items/${encodeURIComponent(id)}/claim`);
      holdClaim = true;
      claimLine.className = 'claimline mine';
      claimLine.dataset.holder = 'me';
      claimLine.textContent = `You hold this item until ${fmtDate(r.claim?.until).slice(11, 19)} (renewed every minute while it is open).`;
    } catch (e) {
      holdClaim = false;
      if (e instanceof ApiError && e.status === 409) {
        const c = e.body.claim ?? {};
        claimLine.className = 'claimline other';
        claimLine.dataset.holder = c.by ?? 'someone';
        clear(claimLine).append('Claimed by ', untrusted(c.by ?? 'another reviewer'), ` until ${fmtDate(c.until).slice(11, 19)}: a decision by you is refused${purge ? ' (admins may override)' : ''}.`);
      } else if (!(e instanceof ApiError && e.status === 401)) {
        claimLine.className = 'claimline';
        clear(claimLine).append('Could not claim this item: ', untrusted(e.message));
      }
    }
  }
  function release() {
    left = true;
    clearInterval(claimTimer);
    window.removeEventListener('pagehide', release);
    if (holdClaim) { holdClaim = false; api('DELETE', `/v1/review/items/${encodeURIComponent(id)}/claim`, undefined, { keepalive: true, quiet401: true }).catch(() => {}); }
  }

  const { filter: qFilter, sort: qSort } = queueFilterOf(session.queueHash);
  // "Next I can decide" (j): asked for while the page renders, so the key press only navigates.
  const nextQuery = `/v1/review/next${qs({ ...qFilter, sort: qSort, after: id })}`;
  let nextPromise = null;
  const nextDecidable = () => (nextPromise ??= api('GET', nextQuery).catch((e) => { nextPromise = null; throw e; }));
  const pre = prefetched.get(id);
  prefetched.clear();
  // A prefetched detail is used only when fresh; the claim taken below and the decision endpoint check the live state anyway.
  const detailP = pre && performance.now() - pre.at < PREFETCH_MAX_AGE_MS ? pre.p.catch(() => api('GET', `/v1/review/items/${encodeURIComponent(id)}`)) : api('GET', `/v1/review/items/${encodeURIComponent(id)}`);
  const [detail, reasonLabels] = await Promise.all([detailP, decide ? loadReasons().catch(() => []) : [], claim()]);
  if (!current()) { release(); return; }
  if (decide) { claimTimer = setInterval(claim, RENEW_MS); window.addEventListener('pagehide', release); }
  const it = detail.item;
  const fb = detail.feedback ?? {};
  const v = detail.verdict ?? null;
  const ev = detail.evidence ?? null;

  // --- decisions ------------------------------------------------------------------------------------
  const note = h('textarea', { name: 'note', rows: 2, maxlength: 2000, placeholder: 'optional note (kept in the audit log)' });
  // Reason labels: toggled with 1–9 or a click, sent with the decision.
  const chosen = new Set(it.reasons ?? []);
  const chips = reasonLabels.map((r) => {
    const b = h('button', { type: 'button', class: 'chip', 'aria-pressed': String(chosen.has(r.key)), dataset: { reason: r.key }, 'aria-keyshortcuts': r.shortcut ?? '' },
      r.shortcut ? [h('kbd', { text: r.shortcut }), ' '] : null, r.label);
    b.addEventListener('click', () => toggleReason(r.key));
    return b;
  });
  function toggleReason(key) {
    if (chosen.has(key)) chosen.delete(key); else chosen.add(key);
    for (const c of chips) c.setAttribute('aria-pressed', String(chosen.has(c.dataset.reason)));
  }
  const reasonBox = reasonLabels.length ? h('div', { class: 'reasons', id: 'reasons', role: 'group', 'aria-label': 'Reasons' }, chips) : null;
  const undoBar = h('div', { class: 'undo-bar', id: 'undo-bar', role: 'status', hidden: true });
  let undoTimer = null;
  function showUndo(action, state) {
    clearTimeout(undoTimer);
    clear(undoBar).append(h('span', { text: `${action === 'approve' ? 'Approved' : action === 'redact' ? 'Redacted' : 'Restored'} — now ${state}. ` }),
      h('button', { type: 'button', id: 'undo', 'aria-keyshortcuts': 'z', on: { click: () => undoNow(id) } }, 'Undo ', h('kbd', { text: 'z' })));
    undoBar.hidden = false;
    undoTimer = setTimeout(() => { undoBar.hidden = true; }, UNDO_BAR_MS);
  }
  async function undoNow(which) {
    clearTimeout(undoTimer);
    try {
      const r = await undoLast(which);
      undoBar.hidden = true;
      clear(outcome).append(h('p', { class: 'ok', dataset: { state: r.item.state, undone: r.undid.action } }, `Undone: ${r.undid.action} — `, untrusted(docLabel(r.item)), ` is ${r.item.state} again.`));
      if (r.item.id === id) {
        afterDecision(r.item);
        if (redactButton) redactButton.disabled = !claimSpans.length || r.item.state === 'PURGED';
        chosen.clear();
        for (const c of chips) c.setAttribute('aria-pressed', 'false');
        nextPromise = null;
      }
      toast(`Undone: ${docLabel(r.item)} is ${r.item.state} again`, 'ok');
    } catch (e) {
      undoBar.hidden = true;
      clear(outcome).append(h('p', { class: 'error', dataset: { status: e.status ?? '' }, text: e.status === 409 ? `Undo refused (409): ${e.message}` : e.status === 404 ? `Nothing to undo: ${e.message}` : `Undo failed: ${e.message}` }));
    }
  }
  async function decideNow(action, extra = {}) {
    clear(outcome);
    const body = { action, ...(note.value.trim() ? { note: note.value.trim() } : {}), ...(chosen.size && action !== 'purge' ? { reasons: [...chosen] } : {}), ...extra };
    try {
      const updated = await api('POST', `/v1/review/items/${encodeURIComponent(id)}/decision`, body);
      holdClaim = false; // a decision releases the claim
      toast(`${action}: ${docLabel(updated.documentId ? updated : it)} is now ${updated.state}`, 'ok');
      outcome.append(h('p', { class: 'ok', dataset: { state: updated.state }, text: `Done: ${action} — the item is now ${updated.state}.` }));
      afterDecision(updated);
      if (action !== 'purge') showUndo(action, updated.state);
    } catch (e) {
      const who = e.body?.claim?.by;
      const text = e.status === 409 ? `Refused (409): ${e.message}` : e.status === 403 ? `Not allowed (403): ${e.message}` : `Failed (${e.status ?? 'error'}): ${e.message}`;
      outcome.append(h('p', { class: 'error', dataset: { status: e.status ?? '' } }, text, e.status === 409 && who ? [' — held by ', untrusted(who)] : null));
    }
  }
  // Redact (issue 35): the claim span(s) replaced by a marker in a new, served version; the original kept until purged.
  const claimSpans = it.state === 'PURGED' ? [] : (v?.spans ?? []);
  const canRedact = decide && claimSpans.length > 0 && it.state !== 'PURGED' && !(detail.redaction?.served);
  async function redactNow(anyway = false) {
    clear(outcome);
    redactWarning.hidden = true;
    if (canRedact && !anyway && onlyQuestionLeft(detail.text ?? '', claimSpans, fb.query ?? it.query ?? '')) {
      // Issue 54: a wholly planted text redacted leaves the question alone served ("What is the capital of Australia? […]").
      clear(redactWarning).append(
        h('p', {}, h('strong', { text: 'Redacting leaves only the question served: ' }), '“', untrusted(short(redactedPreview(detail.text ?? '', claimSpans), 200), { id: 'redact-leftover' }),
          '” — nothing of the text but the question and […]. The whole text looks planted: quarantine it instead?'),
        h('button', { type: 'button', class: 'danger', id: 'redact-quarantine', text: 'Quarantine instead (approve)', on: { click: () => { redactWarning.hidden = true; decideNow('approve'); } } }), ' ',
        h('button', { type: 'button', id: 'redact-anyway', text: 'Redact anyway', on: { click: () => redactNow(true) } }), ' ',
        h('button', { type: 'button', text: 'Cancel', on: { click: () => { redactWarning.hidden = true; } } }));
      redactWarning.hidden = false;
      redactWarning.querySelector('#redact-quarantine').focus();
      return;
    }
    if (!canRedact) { outcome.append(h('p', { class: 'error', text: claimSpans.length ? 'This item cannot be redacted now (purged, or already redacted).' : 'No claim span is stored for this item: nothing to redact.' })); return; }
    const body = { ...(note.value.trim() ? { note: note.value.trim() } : {}), ...(chosen.size ? { reasons: [...chosen] } : {}) };
    try {
      const r = await api('POST', `/v1/review/items/${encodeURIComponent(id)}/redact`, body);
      holdClaim = false;
      toast(`redacted: ${docLabel(r.item)} — the redacted version is served`, 'ok');
      outcome.append(h('p', { class: 'ok', dataset: { state: r.item.state, decision: 'redact' }, text: `Done: redacted ${r.redaction.spans.length} span${r.redaction.spans.length === 1 ? '' : 's'} (${r.redaction.removedChars} characters) — the redacted version ${short(r.redaction.documentId, 13)} is served; restore brings the original back.` }));
      afterDecision(r.item);
      if (redactButton) redactButton.disabled = true;
      showUndo('redact', r.item.state);
    } catch (e) {
      const who = e.body?.claim?.by;
      outcome.append(h('p', { class: 'error', dataset: { status: e.status ?? '' } }, e.status === 409 ? `Refused (409): ${e.message}` : `Failed (${e.status ?? 'error'}): ${e.message}`, e.status === 409 && who ? [' — held by ', untrusted(who)] : null));
    }
  }
  const redactButton = decide ? h('button', { type: 'button', id: 'redact', 'aria-keyshortcuts': 'x', disabled: !canRedact, title: canRedact ? 'Replace the claim span(s) by […] in a new served version; the original is kept until purged' : 'No claim span to redact', on: { click: () => redactNow() } }, 'Redact span ', h('kbd', { text: 'x' })) : null;
  const redactWarning = h('div', { class: 'confirm', id: 'redact-warning', role: 'alertdialog', 'aria-label': 'Redaction leaves only the question', hidden: true });
  const purgeBox = h('div', { class: 'purge', hidden: true });
  if (purge) {
    const typed = h('input', { type: 'text', name: 'confirm', autocomplete: 'off', spellcheck: 'false' });
    const go = h('button', { type: 'button', class: 'danger', id: 'purge-confirm', text: 'Purge for good', disabled: true });
    typed.addEventListener('input', () => { go.disabled = typed.value !== it.documentId; });
    go.addEventListener('click', () => decideNow('purge', { confirm: typed.value }));
    purgeBox.append(
      h('p', {}, h('strong', { text: 'Purge is irreversible: ' }), 'the text is removed from the vector store and redacted in Postgres (hash and metadata kept). Type the document id ', h('code', { text: it.documentId }), ' to confirm.'),
      field('Document id', typed), go);
  }
  const decisionPanel = decide ? h('section', { class: 'decide', 'aria-label': 'Decision' },
    h('div', { class: 'buttons' },
      h('button', { type: 'button', class: 'danger', id: 'approve', 'aria-keyshortcuts': 'a', on: { click: () => decideNow('approve') } }, 'Approve ', h('kbd', { text: 'a' })),
      h('button', { type: 'button', class: 'primary', id: 'restore', 'aria-keyshortcuts': 'r', on: { click: () => decideNow('restore') } }, 'Restore ', h('kbd', { text: 'r' })),
      redactButton,
      purge ? h('button', { type: 'button', id: 'purge', text: 'Purge…', on: { click: () => { purgeBox.hidden = !purgeBox.hidden; purgeBox.querySelector('input')?.focus(); } } }) : null),
    h('p', { class: 'muted small', text: 'Approve = confirmed poison, kept out of serving. Restore = served again exactly as it was. Redact span = the highlighted claim span(s) replaced by […] in a new version that is served instead; restore undoes it. Reasons (1–9) go with the decision.' }),
    reasonBox, field('Note', note), redactWarning, purgeBox, undoBar, outcome) : h('p', { class: 'muted', id: 'read-only', text: 'Read-only: your role cannot decide items.' });

  // --- navigation ------------------------------------------------------------------------------------
  const idx = session.queueIds.indexOf(id);
  const prevId = idx > 0 ? session.queueIds[idx - 1] : null;
  const nextId = idx >= 0 && idx < session.queueIds.length - 1 ? session.queueIds[idx + 1] : null;
  const nav = h('nav', { class: 'itemnav', 'aria-label': 'Queue navigation' },
    h('a', { href: session.queueHash, text: '← Queue' }), ' ',
    prevId ? h('a', { href: `#/item/${encodeURIComponent(prevId)}`, rel: 'prev', text: 'previous (k)' }) : null, ' ',
    nextId ? h('a', { href: `#/item/${encodeURIComponent(nextId)}`, rel: 'next', text: 'next of the page' }) : null, ' ',
    h('a', { href: '#', id: 'next-decidable', text: 'next I can decide (j)', on: { click: (e) => { e.preventDefault(); goNext(); } } }));
  async function goNext() {
    try {
      const r = await nextDecidable();
      if (!current()) return;
      if (r.item) location.hash = `#/item/${encodeURIComponent(r.item.id)}`;
      else toast('Nothing left that you can decide in this filter.');
    } catch (e) { toast(`Could not find the next item: ${e.message}`, 'error'); }
  }

  // --- text with the claim span(s) and the wrong answer highlighted ------------------------------------
  // A purged text is the redaction marker: the spans pointed into the text that is gone.
  // A widget report's wrong answer is the whole served sentence: the API locates its claim in the text (fb.claim):
  // the answer as reported, the span of the sentence that answers the question, or the answer's own words.
  const wrong = fb.wrongAnswer ?? it.wrongAnswer ?? '';
  const located = fb.claim && Array.isArray(fb.claim.needles) && fb.claim.needles.length ? fb.claim : { how: 'answer', needles: [wrong] };
  const hl = highlighted(detail.text ?? '', located.needles, claimSpans);
  const textBox = h('div', { class: 'doctext', id: 'doc-text', lang: '' }, hl.node);

  let stateBadge = badge(it.state);
  stateBadge.id = 'item-state';
  stateBadge.dataset.state = it.state;

  // The status line and the progress line follow each decision (approve, restore, redact, undo) without a reload.
  const statusLine = h('p', { class: 'muted', id: 'item-status' });
  function paintStatus(x) {
    const [serving, words] = servingText(x, x.id === it.id && x.decision === it.decision ? detail.redaction : null);
    // Built with h (which skips null children and writes text through visible), not Element.append.
    clear(statusLine).appendChild(h('span', {}, 'collection ', untrusted(x.collection), ` · created ${fmtDate(x.createdAt)} · `,
      h('span', { id: 'item-serving', dataset: { serving }, text: words }),
      x.decidedBy ? [` · ${x.decision ?? 'decided'} by `, untrusted(x.decidedBy), ` at ${fmtDate(x.decidedAt)}`, x.note ? [' (note: ', untrusted(x.note, { class: 'note' }), ')'] : null] : null,
      ' · suspicion ', miniBar(x.suspicion, 'suspicion')));
  }
  paintStatus(it);
  const meta = it.metadata && typeof it.metadata === 'object' ? it.metadata : null;
  const metaLine = h('div', { class: 'meta', id: 'item-meta' }, h('span', { class: 'muted small', text: meta && Object.keys(meta).length ? "The app's metadata of this text: " : "The app gave no metadata for this text." }),
    meta && Object.keys(meta).length ? kvList(meta, null, { id: 'item-meta-rows' }) : null);
  let progress = progressLine(qFilter);
  function afterDecision(updated) {
    if (!updated) return;
    stateBadge.replaceWith(stateBadge = badge(updated.state));
    stateBadge.id = 'item-state';
    stateBadge.dataset.state = updated.state;
    paintStatus({ ...it, ...updated });
    const next = progressLine(qFilter);
    progress.replaceWith(next);
    progress = next;
  }

  const sections = [
    h('section', { 'aria-labelledby': 'h-text' }, h('h2', { id: 'h-text', text: 'Text' }),
      h('p', { class: 'muted small', id: 'hit-count', dataset: { how: located.how, count: hl.count } }, located.how === 'answer' || located.how === 'none'
        ? [`${hl.count} occurrence${hl.count === 1 ? '' : 's'} of the wrong answer “`, untrusted(short(wrong, 60)), '” highlighted',
          located.how === 'none' && wrong.split(/\s+/).length >= 6 ? ' (the reported answer is a whole sentence, and none of its own words are in this text)' : '']
        : ['The wrong answer is a whole sentence (“', untrusted(short(wrong, 80)), '”), so its claim is highlighted instead — ',
          located.how === 'span' ? 'the part that answers the question: ' : 'the words of the answer that are not in the question: ',
          located.needles.map((n, i) => [i ? ', ' : '', h('mark', { class: 'hit legend' }, untrusted(n))]), ` (${hl.count} occurrence${hl.count === 1 ? '' : 's'})`]),
      h('p', { class: 'muted small', id: 'span-count' }, hl.spans
        ? [h('mark', { class: 'claim legend', text: 'claim span' }), ` ${hl.spans} span${hl.spans === 1 ? '' : 's'}: the sentence${hl.spans === 1 ? '' : 's'} the judge found carrying the claim`]
        : 'No claim span: the judge gave none for this text (or its quote was not found in it).'),
      textBox,
      detail.redaction ? h('div', { class: 'redaction', id: 'redaction', dataset: { served: String(!!detail.redaction.served) } },
        h('h3', { text: detail.redaction.served ? 'Served instead: the redacted version' : 'Redacted version (withdrawn: not served)' }),
        h('p', { class: 'muted small' }, `document ${detail.redaction.documentId} · ${detail.redaction.removedChars} characters replaced by ${detail.redaction.marker} · by `, untrusted(detail.redaction.by), ` at ${fmtDate(detail.redaction.at)}`),
        h('div', { class: 'doctext', id: 'redacted-text', text: detail.redaction.text ?? '' })) : null),
    h('section', { 'aria-labelledby': 'h-fb' }, h('h2', { id: 'h-fb', text: 'Feedback event' }), dl([
      ['Query', untrusted(fb.query ?? it.query ?? '—', { id: 'fb-query' })],
      ['Wrong answer', untrusted(fb.wrongAnswer ?? it.wrongAnswer ?? '—', { id: 'fb-wrong' })],
      ['Correct answer', untrusted(fb.correctAnswer ?? '—', { id: 'fb-correct' })],
      ['Served answer', untrusted(fb.servedAnswer ?? '—', { id: 'fb-served', class: 'served' })],
      ['Reporter', reporterLabel(fb.reporter, fb.reporterKind, { id: 'fb-reporter' })],
      ['Reported', fmtDate(fb.createdAt)],
      ['Status', fb.status ?? '—'],
      ['Verification', fb.verification ? h('span', { text: typeof fb.verification === 'string' ? fb.verification : JSON.stringify(fb.verification) }) : '—'],
      ['Event', fb.id ? h('a', { href: `#/queue?feedbackId=${encodeURIComponent(fb.id)}&state=NEEDS_REVIEW,QUARANTINED,RESTORED,PURGED`, text: `all items of ${short(fb.id, 13)}` }) : '—'],
    ])),
    h('section', { 'aria-labelledby': 'h-judge' }, h('h2', { id: 'h-judge', text: 'Judge' }), v ? [dl([
      ['Label', h('span', { class: `label label-${String(v.label ?? '').toLowerCase()}`, id: 'judge-label', text: v.label ?? '—' })],
      ['Judge', `${v.judgeKind ?? '—'}${v.judgeModel ? ` · ${v.judgeModel}` : ''}${v.promptVersion ? ` · prompt ${v.promptVersion}` : ''}`],
      ['Round', v.round ?? '—'], ['Retrieval rank / score', `${v.retrievalRank ?? '—'} / ${fmtNum(v.retrievalScore)}`], ['Latency', v.latencyMs !== undefined && v.latencyMs !== null ? `${v.latencyMs} ms` : '—'],
    ]), whyList(v, ev?.policy, it), h('details', { class: 'reply-box' }, h('summary', { text: 'Full reply of the judge' }), h('pre', { class: 'reply', id: 'judge-reply', text: v.reply ?? '' }))] : h('p', { class: 'muted', text: 'No verdict recorded.' })),
    h('section', { 'aria-labelledby': 'h-ev', id: 'evidence' }, h('h2', { id: 'h-ev', text: 'Evidence' }), ev ? [
      h('p', { class: 'muted small', text: 'Suspicion (0..1) of this text (▶, blue) against the event\'s other candidates (red: quarantined, grey: served) with the judge\'s label; hover a bar for its raw values.' }),
      h('div', { class: 'charts' }, evidenceChart('BiRD', 'bird', detail), evidenceChart('GRADA', 'grada', detail), evidenceChart('ProGRank', 'progrank', detail), evidenceChart('Combined', 'combined', detail)),
      h('h3', { text: `Policy: ${ev.policy?.name ?? '—'}` }),
      ev.policy?.decision ? h('p', { class: 'small', id: 'policy-decision' }, `Decision: ${ev.policy.decision}${ev.policy.withhold ? ' (withheld from serving)' : ''}`, ev.policy.reason ? [' — ', untrusted(ev.policy.reason)] : null) : null,
      ev.policy?.inputs ? kvList(ev.policy.inputs, POLICY_LABELS, { id: 'policy-inputs', class: 'kv rows policy' }) : null,
    ] : h('p', { class: 'muted', text: 'No evidence recorded for this item.' })),
    h('section', { 'aria-labelledby': 'h-sib' }, h('h2', { id: 'h-sib', text: 'Other texts of the same event' }),
      detail.siblings?.length ? itemTable(detail.siblings) : h('p', { class: 'muted', text: 'None.' })),
    h('section', { 'aria-labelledby': 'h-dup' }, h('h2', { id: 'h-dup', text: 'Near-duplicates in the collection' }),
      detail.nearDuplicates?.length ? h('table', { class: 'compact', id: 'near-duplicates' }, h('thead', {}, h('tr', {}, ['Text (app id · source · service id)', 'Similarity', 'State', 'Text'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, detail.nearDuplicates.map((d) => h('tr', {},
          h('td', {}, h('a', { href: `#/audit?entityId=${encodeURIComponent(d.documentId)}` }, docName(d))),
          h('td', {}, miniBar(d.similarity, 'similarity')), h('td', {}, d.state ? badge(d.state) : 'served'), h('td', { class: 'preview' }, untrusted(short(d.textPreview, 140)))))))
        : h('p', { class: 'muted', text: 'None.' })),
    h('section', { 'aria-labelledby': 'h-earlier' }, h('h2', { id: 'h-earlier', text: 'Earlier decisions on this text' }),
      detail.earlierDecisions?.length ? h('table', { class: 'compact', id: 'earlier' }, h('thead', {}, h('tr', {}, ['When', 'Who', 'Action', 'Note', 'For query / wrong answer'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, detail.earlierDecisions.map((d) => h('tr', {}, h('td', { text: fmtDate(d.at) }), h('td', {}, untrusted(d.actor)), h('td', { text: d.action }), h('td', {}, untrusted(d.note ?? '')), h('td', {}, untrusted(short(d.query, 60)), ' / ', untrusted(short(d.wrongAnswer, 40)))))))
        : h('p', { class: 'muted', text: 'None.' })),
    h('section', { 'aria-labelledby': 'h-hist' }, h('h2', { id: 'h-hist', text: 'History' }),
      detail.history?.length ? h('table', { class: 'compact' }, h('thead', {}, h('tr', {}, ['When', 'Who', 'Action', 'Details'].map((t) => h('th', { scope: 'col', text: t })))),
        h('tbody', {}, detail.history.map((a) => h('tr', {}, h('td', { class: 'small', text: fmtDate(a.at) }), h('td', {}, untrusted(a.actor)), h('td', {}, untrusted(a.action)), h('td', {}, a.details ? kvList(a.details, HISTORY_LABELS, { class: 'kv rows history' }) : '')))))
        : h('p', { class: 'muted', text: 'No audit entries.' })),
  ];

  view.append(
    nav,
    h('h1', {}, 'Item ', it.externalId ? [untrusted(it.externalId, { id: 'item-ext', class: 'ext' }), ' '] : null,
      h('code', { id: 'item-doc', class: it.externalId ? 'uuid' : '', title: "the service's id of the text", text: it.documentId }), ' ', stateBadge),
    statusLine, metaLine, progress, claimLine, decisionPanel,
    h('div', { class: 'sections' }, sections),
    h('p', { class: 'shortcuts muted' }, 'Shortcuts: ', h('kbd', { text: 'j' }), ' next I can decide · ', h('kbd', { text: 'k' }), ' previous item · ',
      decide ? [h('kbd', { text: 'a' }), ' approve · ', h('kbd', { text: 'r' }), ' restore · ', h('kbd', { text: 'x' }), ' redact span · ', h('kbd', { text: '1–9' }), ' reasons · ', h('kbd', { text: 'z' }), ' undo · '] : null, h('kbd', { text: 'u' }), ' back to the queue · ', h('kbd', { text: '?' }), ' help'));
  view.setAttribute('data-page', 'item');
  view.dataset.loaded = String(performance.now());
  if (!decide) clear(claimLine).append(...(it.claim ? ['Claimed by ', untrusted(it.claim.by), ` until ${fmtDate(it.claim.until).slice(11, 19)}.`] : []));
  nextDecidable().then((r) => {
    if (!r.item || left || !current()) return;
    const p = api('GET', `/v1/review/items/${encodeURIComponent(r.item.id)}`);
    p.catch(() => {});
    prefetched.set(r.item.id, { p, at: performance.now() });
  }).catch(() => {});
  const reasonKeys = Object.fromEntries(reasonLabels.filter((r) => r.shortcut).map((r) => [r.shortcut, { label: `reason: ${r.label}`, run: () => toggleReason(r.key) }]));

  page({
    onLeave: release,
    shortcuts: {
      j: { label: 'next item I can decide (skips decided items and items others hold)', run: () => goNext() },
      k: { label: 'previous item of the queue page', run: () => { if (prevId) location.hash = `#/item/${encodeURIComponent(prevId)}`; else toast('First item of this queue page.'); } },
      ...(decide ? {
        a: { label: 'approve (confirmed poison)', run: () => decideNow('approve') }, r: { label: 'restore (served again)', run: () => decideNow('restore') },
        x: { label: 'redact the claim span(s) (a redacted version is served instead)', run: () => redactNow() },
        z: { label: 'undo (this decision while the bar shows, else my last decision)', run: () => undoNow(undoBar.hidden ? undefined : id) },
        ...reasonKeys,
      } : {}),
      u: { label: 'back to the queue', run: () => { location.hash = session.queueHash; } },
    },
  });
}
