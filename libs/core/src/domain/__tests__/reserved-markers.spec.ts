/**
 * Property tests of the reserved-marker filter (issue 10): generated Unicode disguises of
 * `[LATEST]` / `[/LATEST]` never survive {@link stripReservedMarkers}; texts without markers come
 * back unchanged; {@link wrapLatest} still yields exactly one real marker pair. Seeded (mulberry32)
 * so every run sees the same cases.
 */
import { mulberry32 } from '@forensics/algorithms';
import { hasReservedMarkers, MAX_DECODE_PASSES, stripReservedMarkers } from '../text-identity';
import { wrapLatest } from '../../use-cases/serving/enhance-answer/enhance-answer.use-case';

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];

const INVISIBLES = ['\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD', '\u200E', '\u200F', '\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u061C', '\uFE0F', '\u034F'];
const LOOKALIKES: Record<string, string[]> = {
  L: ['L', 'l', 'Ｌ', 'ｌ', '\u04C0', '\u04CF', '\u029F', '\u{1D40B}', '\u{1D425}', 'Ⅼ', 'ⅼ'],
  A: ['A', 'a', 'Ａ', 'ａ', '\u0410', '\u0430', '\u0391', '\u03B1', '\u1D00', '\u{1D400}', 'Á', 'A\u0301'],
  T: ['T', 't', 'Ｔ', 'ｔ', '\u0422', '\u0442', '\u03A4', '\u03C4', '\u1D1B', '\u{1D413}'],
  E: ['E', 'e', 'Ｅ', 'ｅ', '\u0415', '\u0435', '\u0395', '\u1D07', '\u{1D404}', 'É', 'e\u0300'],
  S: ['S', 's', 'Ｓ', 'ｓ', '\u0405', '\u0455', '\uA731', '\u{1D412}'],
  '[': ['[', '［', '\u3010', '\u3014', '\u301A', '\u27E6'],
  ']': [']', '］', '\u3011', '\u3015', '\u301B', '\u27E7'],
  '/': ['/', '／', '\u2044', '\u2215'],
};
const SPACES = ['', '', ' ', '  ', '\t', '\u3000', '\u00A0'];

/** One disguised marker: every character a random look-alike, random invisibles between characters, random spaces inside the brackets. */
function disguise(rng: Rng, closing: boolean): string {
  const inner = `${closing ? '/' : ''}LATEST`;
  const parts: string[] = [pick(rng, LOOKALIKES['[']), pick(rng, SPACES)];
  for (const ch of inner) {
    while (rng() < 0.3) parts.push(pick(rng, INVISIBLES));
    parts.push(pick(rng, LOOKALIKES[ch]));
    if (ch === '/') parts.push(pick(rng, SPACES));
  }
  parts.push(pick(rng, SPACES), pick(rng, LOOKALIKES[']']));
  return parts.join('');
}

const WORDS = ['the', 'Moby-Dick', 'novel', 'ﬁle', 'Ｔｏｋｙｏ', 'naïve', 'Москва', 'Αθήνα', '😀', '[note]', '[LATE]', 'LATEST', '[ LAT EST ]', 'e\u0301', '1851', '東京'];
function prose(rng: Rng, n: number): string {
  return Array.from({ length: n }, () => pick(rng, WORDS)).join(pick(rng, [' ', ' ', '\n']));
}

describe('reserved markers (property tests, seeded)', () => {
  it('no disguised [LATEST] / [/LATEST] survives stripping', () => {
    const rng = mulberry32(20261123);
    for (let i = 0; i < 2000; i++) {
      const open = disguise(rng, false);
      const close = disguise(rng, true);
      const text = `${prose(rng, 3)} ${open}${prose(rng, 4)}${close} ${prose(rng, 2)}`;
      expect(hasReservedMarkers(text)).toBe(true);
      const out = stripReservedMarkers(text);
      expect(hasReservedMarkers(out)).toBe(false);
      expect(out).not.toContain(open);
      expect(out).not.toContain(close);
    }
  });

  it('markers assembled from pieces around a removed one are removed too', () => {
    const rng = mulberry32(7);
    for (let i = 0; i < 500; i++) {
      const m = disguise(rng, false);
      const nested = `[LA${pick(rng, INVISIBLES)}T${m}E${pick(rng, LOOKALIKES.S)}T] ${prose(rng, 3)}`;
      expect(hasReservedMarkers(stripReservedMarkers(nested))).toBe(false);
    }
  });

  it('the disguises are the only thing removed: the surrounding text is unchanged, byte for byte', () => {
    const rng = mulberry32(42);
    for (let i = 0; i < 1000; i++) {
      const before = prose(rng, 4);
      const middle = prose(rng, 5);
      const after = prose(rng, 3);
      expect(stripReservedMarkers(`${before} ${disguise(rng, false)}${middle}${disguise(rng, true)} ${after}`)).toBe(`${before} ${middle} ${after}`);
    }
  });

  it('texts without markers come back unchanged (not normalised)', () => {
    const rng = mulberry32(99);
    for (let i = 0; i < 1000; i++) {
      const text = prose(rng, 1 + Math.floor(rng() * 20)) + pick(rng, INVISIBLES);
      expect(hasReservedMarkers(text)).toBe(false);
      expect(stripReservedMarkers(text)).toBe(text);
    }
    for (const t of ['ﬁ Ｔｏｋｙｏ e\u0301 \u200B [LATE ST] [LATESTS] [/LATE] [LATEST', 'LATEST]', '[[LATES]T]']) expect(stripReservedMarkers(t)).toBe(t);
  });

  it('wrapLatest output carries exactly one real marker pair, whatever disguises the text held', () => {
    const rng = mulberry32(1234);
    for (let i = 0; i < 500; i++) {
      const text = `${prose(rng, 3)} ${disguise(rng, rng() < 0.5)} ${prose(rng, 3)} ${disguise(rng, rng() < 0.5)}`;
      const wrapped = wrapLatest(text);
      expect(wrapped.startsWith('[LATEST] ')).toBe(true);
      expect(wrapped.endsWith(' [/LATEST]')).toBe(true);
      const inner = wrapped.slice('[LATEST] '.length, -' [/LATEST]'.length);
      expect(hasReservedMarkers(inner)).toBe(false);
      expect(stripReservedMarkers(wrapped)).toBe(` ${inner} `);
    }
  });
});

// ── encoded forms (issue 35, item 6) ─────────────────────────────────────────────────────────────

/** Every look-alike form of the marker known so far: plain and Unicode forms (issue 10), the two HTML-entity forms the issue-35 probe passed through, and the encodings item 6 names. */
const KNOWN_FORMS: Array<[string, string]> = [
  ['plain', '[LATEST]'], ['lower case', '[latest]'], ['spaces inside', '[ LATEST ]'], ['closing', '[/LATEST]'],
  ['zero-width inside', '[LA\u200BTEST]'], ['bidi controls', '[\u202ELATEST\u202C]'], ['fullwidth', '［ＬＡＴＥＳＴ］'],
  ['mathematical bold', '[\u{1D40B}\u{1D400}\u{1D413}\u{1D404}\u{1D412}\u{1D413}]'], ['combining marks', '[LA\u0301TE\u0300ST]'],
  ['Cyrillic', '[LAТЕЅТ]'], ['Greek', '[LΑΤΕST]'], ['small capitals', '[ʟᴀᴛᴇꜱᴛ]'], ['CJK brackets', '【LATEST】'],
  ['decimal references', '&#91;LATEST&#93;'], ['named references', '&lbrack;LATEST&rbrack;'], ['named (lsqb)', '&lsqb;/LATEST&rsqb;'],
  ['hex references', '&#x5B;LATEST&#x5D;'], ['hex, upper-case X', '&#X5b;latest&#X5D;'], ['no semicolons', '&#91LATEST&#93'],
  ['leading zeros', '&#0091;LATEST&#000093;'], ['referenced letters', '[&#76;&#x41;&#84;&#69;&#83;&#84;]'], ['referenced slash', '[&sol;LATEST]'],
  ['fullwidth by reference', '&#xFF3B;LATEST&#xFF3D;'], ['percent', '%5BLATEST%5D'], ['percent, lower case', '%5b/latest%5d'],
  ['percent letters', '[%4C%41%54%45%53%54]'], ['percent UTF-8 fullwidth', '%EF%BC%BBLATEST%EF%BC%BD'],
  ['double: &amp;', '&amp;#91;LATEST&amp;#93;'], ['triple: &amp;amp;', '&amp;amp;lbrack;LATEST&amp;amp;rbrack;'],
  ['double: %25', '%255BLATEST%255D'], ['reference, percent-encoded', '%26%2391%3BLATEST%26%2393%3B'], ['percent inside a reference', '&#%39%31;LATEST]'],
  ['mixed with a disguise', '&#91;LA\u200BТЕST&rsqb;'],
];

/**
 * `ch` as one of its encodings, picked at random: itself, decimal / hex reference, a named reference, percent-encoded UTF-8.
 * Always with the `;` (without it, a following digit would continue the number: the table above has the semicolon-less form).
 */
function encodeChar(rng: Rng, ch: string): string {
  const cp = ch.codePointAt(0)!;
  const named: Record<string, string[]> = { '[': ['&lbrack;', '&lsqb;'], ']': ['&rbrack;', '&rsqb;'], '/': ['&sol;'] };
  const forms = [ch, `&#${cp};`, `&#x${cp.toString(16)};`, `&#X${cp.toString(16).toUpperCase()};`, [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''), ...(named[ch] ?? [])];
  return pick(rng, forms);
}
/** One more layer of escaping around an already encoded text: `&` → `&amp;` or `%` → `%25` (and `&` → `%26`). */
function escapeAgain(rng: Rng, s: string): string {
  return rng() < 0.5 ? s.replace(/&/g, '&amp;') : s.replace(/%/g, '%25').replace(/&/g, '%26');
}

describe('reserved markers in encoded forms (issue 35, item 6)', () => {
  it.each(KNOWN_FORMS)('%s: %s is stripped, the text around it kept', (_name, form) => {
    const text = `Moby-Dick ${form} was written by Melville.`;
    expect(hasReservedMarkers(text)).toBe(true);
    expect(stripReservedMarkers(text)).toBe('Moby-Dick  was written by Melville.');
  });

  it('generated encodings (references, percent-encoding, up to 3 layers, around disguises) never survive; the rest is unchanged', () => {
    const rng = mulberry32(35);
    for (let i = 0; i < 2000; i++) {
      const encode = (closing: boolean) => {
        let m = [...disguise(rng, closing)].map((ch) => (rng() < 0.6 ? encodeChar(rng, ch) : ch)).join('');
        for (let layers = Math.floor(rng() * 3); layers > 0; layers--) m = escapeAgain(rng, m);
        return m;
      };
      const [before, middle, after] = [prose(rng, 3), prose(rng, 4), prose(rng, 2)];
      const text = `${before} ${encode(false)}${middle}${encode(true)} ${after}`;
      expect(hasReservedMarkers(text)).toBe(true);
      const out = stripReservedMarkers(text);
      expect(hasReservedMarkers(out)).toBe(false);
      expect(out).toBe(`${before} ${middle} ${after}`);
    }
  });

  it('ordinary ampersands, percent signs and references elsewhere are left alone, byte for byte; malformed ones do not throw', () => {
    for (const t of [
      'R&D &amp; Co. &copy; 2024 — 50% off, 100%', '%zz %E2%82 %C1%9B (overlong) %ED%A0%80 (surrogate) %', '&#91; alone, &lbrack;x&rbrack; and %5B5%5D',
      '&#xD800; &#0; &#99999999999; &nosuchname; &', '[LATE&#83;] [LATEST&#83;] &#91;LATES&#93;T',
    ]) expect(stripReservedMarkers(t)).toBe(t);
  });

  it('only the encoded marker is cut, even when references sit right next to it', () => {
    expect(stripReservedMarkers('&lt;b&gt;&#91;LATEST&#93;&lt;/b&gt; %41%5BLATEST%5D%42')).toBe('&lt;b&gt;&lt;/b&gt; %41%42');
  });

  it(`a text escaped more than ${MAX_DECODE_PASSES} times over is decoded ${MAX_DECODE_PASSES} times, quickly`, () => {
    const escaped = (n: number) => `&${'amp;'.repeat(n)}#91;LATEST&#93;`;
    expect(hasReservedMarkers(escaped(MAX_DECODE_PASSES - 1))).toBe(true);
    expect(hasReservedMarkers(escaped(MAX_DECODE_PASSES))).toBe(false);
    const long = escaped(25_000); // 100,000 characters: the longest ingested text
    const t0 = Date.now();
    expect(stripReservedMarkers(long)).toBe(long);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});
