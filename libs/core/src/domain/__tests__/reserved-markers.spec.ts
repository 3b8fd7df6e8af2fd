/**
 * Property tests of the reserved-marker filter (issue 10): generated Unicode disguises of
 * `[LATEST]` / `[/LATEST]` never survive {@link stripReservedMarkers}; texts without markers come
 * back unchanged; {@link wrapLatest} still yields exactly one real marker pair. Seeded (mulberry32)
 * so every run sees the same cases.
 */
import { mulberry32 } from '@forensics/algorithms';
import { hasReservedMarkers, stripReservedMarkers } from '../text-identity';
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
