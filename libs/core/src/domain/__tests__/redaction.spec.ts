import { REDACTION_MARKER, RedactionError, redactSpans } from '../redaction';

describe('redactSpans', () => {
  const text = 'Good one. Planted claim here. Good two.';
  const planted = { start: 10, end: 29 }; // "Planted claim here."

  it('replaces each span by the marker and keeps the rest exactly', () => {
    expect(text.slice(planted.start, planted.end)).toBe('Planted claim here.');
    const r = redactSpans(text, [planted]);
    expect(r.text).toBe(`Good one. ${REDACTION_MARKER} Good two.`);
    expect(r.removedChars).toBe(19);
  });

  it('merges overlapping and touching spans, in text order', () => {
    const r = redactSpans(text, [{ start: 20, end: 29 }, { start: 10, end: 20 }, { start: 0, end: 4 }]);
    expect(r.spans).toEqual([{ start: 0, end: 4 }, { start: 10, end: 29 }]);
    expect(r.text).toBe(`${REDACTION_MARKER} one. ${REDACTION_MARKER} Good two.`);
    expect(r.removedChars).toBe(4 + 19);
  });

  it('refuses spans outside the text, empty or reversed spans, no span, and the whole text', () => {
    expect(() => redactSpans(text, [])).toThrow(RedactionError);
    expect(() => redactSpans(text, [{ start: 5, end: 5 }])).toThrow(/not inside the text/);
    expect(() => redactSpans(text, [{ start: 0, end: text.length + 1 }])).toThrow(/not inside the text/);
    expect(() => redactSpans(text, [{ start: -1, end: 3 }])).toThrow(/not inside the text/);
    expect(() => redactSpans(text, [{ start: 1.5, end: 3 }])).toThrow(/not inside the text/);
    expect(() => redactSpans(text, [{ start: 0, end: 9 }, { start: 9, end: text.length }])).toThrow(/whole text/);
    // Whitespace alone left over is nothing left.
    expect(() => redactSpans('  abc  ', [{ start: 2, end: 5 }])).toThrow(/whole text/);
  });
});
