import { locateQuote, mergeSpans, spansOverlap } from '../locate-quote';

describe('locateQuote', () => {
  const text = 'The tower was built in 1889. Its spire [3] was painted red on May 4, 1901.\nVisitors climb it daily.';

  it('finds an exact quote and keeps its full stop', () => {
    const s = locateQuote(text, 'The tower was built in 1889.')!;
    expect(text.slice(s.start, s.end)).toBe('The tower was built in 1889.');
  });

  it('is tolerant of case, whitespace and punctuation', () => {
    const s = locateQuote(text, '  the TOWER was built in   1889 ')!;
    expect(s).toEqual({ start: 0, end: 28 });
  });

  it('skips a citation marker and a dropped day of month (what the offline judge normalises away)', () => {
    const s = locateQuote(text, 'Its spire was painted red on May, 1901.')!;
    expect(text.slice(s.start, s.end)).toBe('Its spire [3] was painted red on May 4, 1901.');
  });

  it('never invents a span for a paraphrase or a quote with a word the text lacks', () => {
    expect(locateQuote(text, 'The tower was erected in 1889.')).toBeUndefined();
    expect(locateQuote(text, 'Its spire was painted blue')).toBeUndefined();
    expect(locateQuote(text, '')).toBeUndefined();
    expect(locateQuote(text, '...')).toBeUndefined();
  });

  it('refuses a quote whose words are spread over more than the skip budget', () => {
    // "The ... 1889" is three words apart from "built": allowed; "tower daily" is 13 words apart: refused.
    expect(locateQuote(text, 'The tower built 1889')).toEqual({ start: 0, end: 28 });
    expect(locateQuote(text, 'tower daily')).toBeUndefined();
  });

  it('locates the pieces of a quote with an ellipsis in order', () => {
    const s = locateQuote(text, 'Its spire … painted red')!;
    expect(text.slice(s.start, s.end)).toBe('Its spire [3] was painted red');
  });

  it('finds the first occurrence from an offset', () => {
    const t = 'A is B. A is B.';
    expect(locateQuote(t, 'A is B')).toEqual({ start: 0, end: 7 });
    expect(locateQuote(t, 'A is B', 1)).toEqual({ start: 8, end: 15 });
  });
});

describe('mergeSpans / spansOverlap', () => {
  it('merges overlapping and touching spans, sorted', () => {
    expect(mergeSpans([{ start: 10, end: 20 }, { start: 0, end: 5 }, { start: 5, end: 8 }, { start: 15, end: 30 }])).toEqual([{ start: 0, end: 8 }, { start: 10, end: 30 }]);
  });
  it('overlap needs a shared character', () => {
    expect(spansOverlap({ start: 0, end: 5 }, { start: 5, end: 9 })).toBe(false);
    expect(spansOverlap({ start: 0, end: 6 }, { start: 5, end: 9 })).toBe(true);
  });
});
