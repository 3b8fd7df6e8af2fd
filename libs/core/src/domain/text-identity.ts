import { createHash } from 'node:crypto';

/**
 * `[LATEST]` / `[/LATEST]` are reserved for benign-text enhancement (RAGForensics, arXiv 2504.21668, App. 8.3):
 * only that path may create them. Every ingested text and every user field goes through
 * {@link stripReservedMarkers}, which removes the markers in any case, with spaces inside the
 * brackets, and in every Unicode disguise a reader (or an LLM) would still take for the marker
 * (issue 10): zero-width and bidi controls inside it (`[LA\u200bTEST]`), compatibility forms
 * (fullwidth `［LATEST］`, mathematical letters), combining marks, and confusable letters from
 * other scripts (Cyrillic `[LATЕST]`, Greek, small capitals).
 *
 * How, without rewriting the rest of the text: the stored text is never normalised. Instead a
 * "folded view" is built one code point at a time — each code point becomes its NFKD form with
 * marks removed, confusables folded to ASCII and lower-cased, or nothing at all for format /
 * default-ignorable characters (zero-width, bidi controls, soft hyphen, variation selectors) — and
 * every UTF-16 unit of the view remembers the [start, end) range of the ORIGINAL code point it came
 * from. The plain ASCII pattern is then searched in the view, and each match's span is mapped back
 * (start of its first unit's code point … end of its last unit's code point) and cut from the
 * original. Folding per code point (not NFKC over the whole string) is what keeps the mapping
 * exact: every view unit has exactly one source code point, so nothing outside a marker changes.
 * Removing a marker can assemble another from the pieces around it ("[LAT[LATEST]EST]"), so the
 * whole pass repeats until nothing is found.
 */
const FOLDED_MARKER = /\[\s*\/?\s*latest\s*\]/g;

/** Characters that vanish from the folded view: format controls (zero-width, bidi), default-ignorables, combining marks. */
const INVISIBLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}\p{M}]+$/u;
const MARKS = /\p{M}/gu;

/** Look-alikes of the marker's characters that NFKD leaves alone (letters of other scripts, other brackets and slashes). */
const CONFUSABLES: Record<string, string> = {
  // l
  '\u04C0': 'l', '\u04CF': 'l', '\u0399': 'l', '\u029F': 'l', '\u2C60': 'l', '\u013F': 'l', '\u0140': 'l', '\u216C': 'l', '\u217C': 'l', '\u0406': 'l', '\u0456': 'l',
  // a
  '\u0410': 'a', '\u0430': 'a', '\u0391': 'a', '\u03B1': 'a', '\u1D00': 'a', '\u0251': 'a', '\u237A': 'a',
  // t
  '\u0422': 't', '\u0442': 't', '\u03A4': 't', '\u03C4': 't', '\u1D1B': 't', '\u01AE': 't',
  // e
  '\u0415': 'e', '\u0435': 'e', '\u0395': 'e', '\u03B5': 'e', '\u1D07': 'e', '\u0404': 'e', '\u0454': 'e', '\u04BC': 'e', '\u04BD': 'e', '\u212E': 'e', '\u2C89': 'e',
  // s
  '\u0405': 's', '\u0455': 's', '\uA731': 's', '\u01BD': 's', '\u10BD': 's',
  // brackets and slash
  '\u3010': '[', '\u3014': '[', '\u301A': '[', '\u27E6': '[', '\u2045': '[', '\u27EC': '[', '\u298B': '[', '\u298D': '[', '\u298F': '[',
  '\u3011': ']', '\u3015': ']', '\u301B': ']', '\u27E7': ']', '\u2046': ']', '\u27ED': ']', '\u298C': ']', '\u298E': ']', '\u2990': ']',
  '\u2044': '/', '\u2215': '/', '\u29F8': '/', '\u2571': '/', '\u30CE': '/',
};

/** The folded form of one code point (see above): '' for invisible ones. */
function foldCodePoint(cp: string): string {
  if (cp.charCodeAt(0) < 0x80) return cp.toLowerCase();
  if (INVISIBLE.test(cp)) return '';
  const direct = CONFUSABLES[cp];
  if (direct) return direct;
  let out = '';
  for (const c of cp.normalize('NFKD').replace(MARKS, '')) out += CONFUSABLES[c] ?? c.toLowerCase();
  return out;
}

/** The folded view of `text` and, per view unit, the original [start, end) of its source code point. */
function foldedView(text: string): { view: string; from: number[]; to: number[] } {
  let view = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < text.length;) {
    const cp = String.fromCodePoint(text.codePointAt(i)!);
    const f = foldCodePoint(cp);
    for (let k = 0; k < f.length; k++) { from.push(i); to.push(i + cp.length); }
    view += f;
    i += cp.length;
  }
  return { view, from, to };
}

/** The original [start, end) spans of every reserved marker in `text`, in order, not overlapping. */
function markerSpans(text: string): Array<[number, number]> {
  const { view, from, to } = foldedView(text);
  const spans: Array<[number, number]> = [];
  for (const m of view.matchAll(FOLDED_MARKER)) {
    const a = from[m.index!];
    const b = to[m.index! + m[0].length - 1];
    // Two view units may share a code point (a compatibility character folding to two); keep spans disjoint.
    if (spans.length && a < spans[spans.length - 1][1]) spans[spans.length - 1][1] = Math.max(spans[spans.length - 1][1], b);
    else spans.push([a, b]);
  }
  return spans;
}

export function stripReservedMarkers(text: string): string {
  // Loop: removing one marker must not assemble another ("[LAT[LATEST]EST]").
  let cur = text;
  for (;;) {
    const spans = markerSpans(cur);
    if (!spans.length) return cur;
    let out = '';
    let at = 0;
    for (const [a, b] of spans) { out += cur.slice(at, a); at = b; }
    cur = out + cur.slice(at);
  }
}

export function hasReservedMarkers(text: string): boolean {
  return markerSpans(text).length > 0;
}

/** sha256 of the NFC-normalised text: the identity of a text within a collection. */
export function textHash(text: string): string {
  return createHash('sha256').update(text.normalize('NFC'), 'utf8').digest('hex');
}

/**
 * Deterministic UUID (v5-shaped, from sha256) for (collection, text hash): the same text ingested
 * twice, by any process, gets the same id in Postgres and in the vector store.
 */
export function documentIdFor(collection: string, hash: string): string {
  const h = createHash('sha256').update(`${collection}\u0000${hash}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** Key of the verdict cache: (text hash, q, t, judge model, prompt version). */
export function verdictCacheKey(parts: { textHash: string; query: string; wrongAnswer: string; judgeModel: string; promptVersion: string }): string {
  return createHash('sha256')
    .update([parts.textHash, parts.query, parts.wrongAnswer, parts.judgeModel, parts.promptVersion].join('\u0000'))
    .digest('hex');
}

export const COLLECTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
