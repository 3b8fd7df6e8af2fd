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
 * The text as text nodes with every occurrence of `needle` wrapped in <mark class="hit"> and every claim
 * span ({start, end} character offsets, issue 35) in <mark class="claim"> (hits nested inside). Built with
 * DOM APIs only: the text is never parsed as markup. Spans outside the text or empty are ignored.
 */
export function highlighted(text, needle, spans = []) {
  const t = text ?? '';
  const frag = document.createDocumentFragment();
  const hits = findOccurrences(t, needle);
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
