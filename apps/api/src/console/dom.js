// DOM helpers for the console. Every piece of text from the API (corpus texts, feedback, judge
// replies, audit details) goes through text nodes / textContent — never innerHTML — so markup in
// the data is shown, never parsed. And every text these helpers write goes through `visible` (issue 56,
// item 5): direction controls and invisible characters are shown as marks, whichever page writes it;
// untrusted values are put in <bdi> (`untrusted`) so that their direction cannot reorder the text around them.

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(el, attrs) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.setAttribute('class', v);
    else if (k === 'text') el.textContent = visible(v);
    else if (k === 'on') for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value' || k === 'checked' || k === 'disabled' || k === 'hidden' || k === 'selected') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(c instanceof Node ? c : document.createTextNode(visible(c)));
  }
  return el;
}

/** An HTML element: h('a', {href: '#/x', text: 'x'}, child, 'text', …). */
export function h(tag, attrs, ...children) {
  return append(apply(document.createElement(tag), attrs), children);
}

/** An SVG element (same attribute rules as h). */
export function s(tag, attrs, ...children) {
  return append(apply(document.createElementNS(SVG_NS, tag), attrs), children);
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function fmtDate(v) {
  if (!v) return '—';
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return String(v);
  return d.toISOString().replace('T', ' ').slice(0, 19) + 'Z';
}

export function fmtNum(v, digits = 3) {
  if (v === null || v === undefined || v === '') return '—';
  const n = Number(v);
  return Number.isFinite(n) ? String(+n.toFixed(digits)) : String(v);
}

/** The text as it is compared: NFKC + lower case, per code point, with a map back to the original. */
function fold(text) {
  let out = '';
  const start = []; // start[i] = offset in `text` of the code point that produced out[i]
  const end = [];
  let i = 0;
  for (const ch of text) {
    const f = ch.normalize('NFKC').toLowerCase();
    for (let k = 0; k < f.length; k++) { start.push(i); end.push(i + ch.length); }
    out += f;
    i += ch.length;
  }
  return { out, start, end };
}

/** Ranges [from, to) of `text` where `needle` occurs, case-insensitively and after NFKC normalisation. */
export function findOccurrences(text, needle) {
  const n = fold(String(needle ?? '').trim()).out;
  if (!text || !n) return [];
  const t = fold(text);
  const ranges = [];
  let at = t.out.indexOf(n);
  while (at >= 0) {
    const from = t.start[at];
    const to = t.end[at + n.length - 1];
    if (!ranges.length || from >= ranges[ranges.length - 1][1]) ranges.push([from, to]);
    at = t.out.indexOf(n, at + n.length);
  }
  return ranges;
}

/**
 * The text as text nodes with every occurrence of `needle` (a string, or an array of them) wrapped in <mark class="hit"> and every claim
 * span ({start, end} character offsets, issue 35) in <mark class="claim"> (hits nested inside). Built with
 * DOM APIs only: the text is never parsed as markup. Spans outside the text or empty are ignored.
 */
export function highlighted(text, needle, spans = []) {
  const t = text ?? '';
  const frag = document.createDocumentFragment();
  // One needle or several (the words of a claim located in a whole served sentence): their ranges, merged in order.
  const hits = (Array.isArray(needle) ? needle : [needle]).flatMap((n) => findOccurrences(t, n)).sort((a, b) => a[0] - b[0])
    .reduce((out, r) => { if (!out.length || r[0] >= out[out.length - 1][1]) out.push(r); return out; }, []);
  const claims = (Array.isArray(spans) ? spans : [])
    .filter((x) => x && Number.isInteger(x.start) && Number.isInteger(x.end) && x.start >= 0 && x.end <= t.length && x.start < x.end)
    .sort((a, b) => a.start - b.start);
  const cuts = [...new Set([0, t.length, ...hits.flat(), ...claims.flatMap((x) => [x.start, x.end])])].sort((a, b) => a - b);
  let box = null; // the <mark class="claim"> being filled
  let boxOf = -1;
  let shown = 0;
  for (let i = 0; i + 1 < cuts.length; i++) {
    const [a, b] = [cuts[i], cuts[i + 1]];
    const piece = t.slice(a, b);
    const hit = hits.some(([f, to]) => f <= a && b <= to);
    const claim = claims.findIndex((x) => x.start <= a && b <= x.end);
    // Each piece shown with its invisible characters as marks (the offsets above are into the stored text).
    const node = hit ? h('mark', { class: 'hit' }, marked(piece)) : marked(piece);
    if (claim < 0) { box = null; boxOf = -1; frag.appendChild(node); continue; }
    if (claim !== boxOf) {
      box = h('mark', { class: 'claim', title: 'claim span: the sentence the judge found carrying the claim', dataset: { span: `${claims[claim].start}-${claims[claim].end}` } });
      boxOf = claim;
      shown += 1;
      frag.appendChild(box);
    }
    box.appendChild(node);
  }
  return { node: frag, count: hits.length, spans: shown };
}

/** A small horizontal bar for a value in [0, 1] (inline SVG), with the number beside it. */
export function miniBar(value, label) {
  const v = value === null || value === undefined ? null : Math.max(0, Math.min(1, Number(value)));
  const svg = s('svg', { class: 'minibar', width: 60, height: 10, viewBox: '0 0 60 10', role: 'img', 'aria-label': `${label ?? 'value'} ${v === null ? 'unknown' : fmtNum(v, 2)}` },
    s('rect', { x: 0, y: 0, width: 60, height: 10, class: 'track' }),
    v === null ? null : s('rect', { x: 0, y: 0, width: (60 * v).toFixed(1), height: 10, class: v >= 0.5 ? 'fill high' : 'fill' }));
  return h('span', { class: 'minibar-wrap' }, svg, h('span', { class: 'num', text: v === null ? '—' : fmtNum(v, 2) }));
}

export function badge(state) {
  return h('span', { class: `badge state-${String(state ?? '').toLowerCase()}`, text: state ?? '—' });
}

let toastTimer = null;
export function toast(message, kind = 'info') {
  const el = document.getElementById('toast');
  if (!el) return;
  el.textContent = visible(message);
  el.dataset.kind = kind;
  el.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove('show'), 5000);
}

/** A <label> + control pair. */
export function field(labelText, control, hint) {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id, text: labelText }), control, hint ? h('small', { class: 'muted', text: hint }) : null);
}

/** A JSON value as preformatted text. */
export function jsonPre(value) {
  return h('pre', { class: 'json', text: value === undefined ? '' : JSON.stringify(value, null, 2) });
}

export function short(s, n = 80) {
  const t = String(s ?? '');
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

// Direction controls (embeddings, overrides, isolates, marks) and invisible characters (zero-width, BOM, word joiner,
// soft hyphen, invisible operators, deprecated format characters, interlinear annotations, tag characters):
// in untrusted text they make a reviewer read something else than what is stored ("work.\u202eevil" displays as
// "work.live"). `visible` shows each as a mark naming its code point, so what is read is what is there.
// h() and s() apply it to every text they write; `untrusted` adds the isolation.
const HIDDEN = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/gu;
export function visible(text) {
  return String(text ?? '').replace(HIDDEN, (c) => `⟦U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}⟧`);
}

/**
 * An untrusted value (a text, a query, a name, a note…) as <bdi>: its direction isolated from the text around it
 * (an Arabic or Hebrew name, or an override, cannot reorder the label beside it) and its invisible characters
 * shown as marks (`visible`, through h). Always text, never markup.
 */
export function untrusted(text, attrs = {}) {
  return h('bdi', attrs, marked(text));
}

const CHAR_NAMES = {
  0x00ad: 'soft hyphen', 0x061c: 'Arabic letter mark', 0x200b: 'zero width space', 0x200c: 'zero width non-joiner', 0x200d: 'zero width joiner',
  0x200e: 'left-to-right mark', 0x200f: 'right-to-left mark', 0x202a: 'left-to-right embedding', 0x202b: 'right-to-left embedding',
  0x202c: 'pop directional formatting', 0x202d: 'left-to-right override', 0x202e: 'right-to-left override', 0x2060: 'word joiner',
  0x2066: 'left-to-right isolate', 0x2067: 'right-to-left isolate', 0x2068: 'first strong isolate', 0x2069: 'pop directional isolate',
  0xfeff: 'zero width no-break space (byte order mark)',
};

/**
 * The text as text nodes, each invisible or direction character replaced by its mark (`visible`) in a
 * <span class="cc"> that names it (title), so the marks stand out from the text. Built with DOM calls only.
 */
export function marked(text) {
  const t = text === null || text === undefined ? '' : String(text);
  const frag = document.createDocumentFragment();
  let last = 0;
  for (const m of t.matchAll(HIDDEN)) {
    if (m.index > last) frag.appendChild(document.createTextNode(t.slice(last, m.index)));
    const cp = m[0].codePointAt(0);
    frag.appendChild(h('span', { class: 'cc', title: `${CHAR_NAMES[cp] ?? 'invisible format character'} (stored in the text, shown as a mark)`, text: m[0] }));
    last = m.index + m[0].length;
  }
  if (last < t.length) frag.appendChild(document.createTextNode(t.slice(last)));
  return frag;
}

// reporterKind of the API (docs/security.md, "Text that lies to the reviewer"): where a reporter name comes from.
const REPORTER_KINDS = {
  'self-declared': ['self-declared', 'Typed by the end user with a feedback token: nobody vouches for this name.'],
  'named-by-key': ['named by an API key', 'Sent in the body by an API key or console session: the key answers for its user\'s name.'],
  key: ['API key', 'The API key or console session that reported.'],
  system: ['in-process', 'An in-process caller (CLI, evaluation, an audit).'],
};

/** A reporter name, isolated, with where it comes from beside it (a feedback token's name is labelled self-declared). */
export function reporterLabel(name, kind, attrs = {}) {
  if (name === null || name === undefined || name === '') return h('span', { class: 'reporter', ...attrs, text: '—' });
  const [label, why] = REPORTER_KINDS[kind] ?? REPORTER_KINDS['self-declared'];
  return h('span', { class: 'reporter', ...attrs }, untrusted(name), ' ',
    h('span', { class: `reporter-kind kind-${kind ?? 'unknown'}`, title: why, dataset: { kind: kind ?? '' }, text: label }));
}

// --- How the app names a text (issue 54, item 4) ------------------------------------------------------------------
// The reviewer knows a text by the id their app gave it at ingest (externalId) and by its metadata (a `source` is often
// the strongest clue), not by the service's UUID: every place that names a text shows those first, the UUID after.

/** Metadata keys read as the text's source, in order (the first string value wins). */
const SOURCE_KEYS = ['source', 'url', 'uri', 'origin', 'file', 'path', 'author', 'publisher'];

/** The text's source from its metadata (a string under one of SOURCE_KEYS), or null. */
export function sourceOf(metadata) {
  if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) return null;
  for (const k of SOURCE_KEYS) if (typeof metadata[k] === 'string' && metadata[k].trim()) return { key: k, value: metadata[k] };
  return null;
}

/** A short label for a text: its externalId, else the start of its UUID. */
export function docLabel(x, n = 40) {
  return x?.externalId ? short(x.externalId, n) : short(x?.documentId ?? '', Math.min(n, 13));
}

/**
 * A text named as the app names it: its externalId (isolated, as untrusted text), its source (from the metadata), and the
 * service's UUID, cut short, in muted type (the whole UUID in the tooltip). `x` carries documentId, externalId, metadata.
 */
export function docName(x, attrs = {}) {
  const src = sourceOf(x?.metadata);
  const uuid = String(x?.documentId ?? '');
  return h('span', { class: 'docname', ...attrs, dataset: { externalId: x?.externalId ?? '', doc: uuid } },
    x?.externalId ? untrusted(short(x.externalId, 60), { class: 'ext' }) : null,
    src ? [' ', h('span', { class: 'source', title: `metadata.${src.key}` }, untrusted(short(src.value, 60)))] : null,
    ' ', h('code', { class: 'uuid', title: `the service's id: ${uuid}`, text: x?.externalId ? short(uuid, 9) : short(uuid, 13) }));
}

const isScalar = (v) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
function scalarText(v) {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'number') return fmtNum(v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}

/**
 * A JSON value as readable rows [label, value]: nested objects flattened into "a · b" labels, arrays of scalars joined,
 * arrays of objects numbered ("remembered 1 · action"). Past `depth` levels a value is shown as compact JSON text.
 */
export function flatRows(value, labels = {}, prefix = '', depth = 3) {
  const rows = [];
  // labels === null: the keys are the app's own (metadata), shown as they are.
  const label = (k) => (labels === null ? k : labels[k] ?? k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase());
  if (!value || typeof value !== 'object') return prefix ? [[prefix, scalarText(value)]] : [];
  for (const [k, v] of Object.entries(value)) {
    const name = prefix ? `${prefix} · ${label(k)}` : label(k);
    if (isScalar(v)) rows.push([name, scalarText(v)]);
    else if (Array.isArray(v) && v.every(isScalar)) rows.push([name, v.length ? v.map(scalarText).join(', ') : '—']);
    else if (depth <= 0) rows.push([name, JSON.stringify(v)]);
    else if (Array.isArray(v)) v.forEach((x, i) => rows.push(...(isScalar(x) ? [[`${name} ${i + 1}`, scalarText(x)]] : flatRows(x, labels, `${name} ${i + 1}`, depth - 1))));
    else rows.push(...flatRows(v, labels, name, depth - 1));
  }
  return rows;
}

/** flatRows as a <dl class="kv rows">: labels and values as text, each isolated (`labels` null: keys as they are). */
export function kvList(value, labels = {}, attrs = {}) {
  const rows = flatRows(value, labels);
  if (!rows.length) return h('span', { class: 'muted', text: '—' });
  // Keys may be untrusted too (the app's metadata): both isolated.
  return h('dl', { class: 'kv rows', ...attrs }, rows.map(([k, v]) => [h('dt', {}, untrusted(k)), h('dd', {}, untrusted(v))]));
}
