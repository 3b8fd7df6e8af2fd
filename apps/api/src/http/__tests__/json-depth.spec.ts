import { exceedsJsonDepth, jsonDepthVerifier, TOO_DEEP_TYPE } from '../json-depth';

const nested = (n: number, open = '[', close = ']') => open.repeat(n) + close.repeat(n);
const bytes = (s: string) => Buffer.from(s, 'utf8');

describe('JSON nesting depth, scanned on the raw body (issue 35, item 5)', () => {
  it('counts arrays and objects inside each other: {} is 1, {"a":[1]} is 2', () => {
    expect(exceedsJsonDepth('{}', 1)).toBe(false);
    expect(exceedsJsonDepth('{}', 0)).toBe(true);
    expect(exceedsJsonDepth('{"a":[1]}', 2)).toBe(false);
    expect(exceedsJsonDepth('{"a":[1]}', 1)).toBe(true);
    expect(exceedsJsonDepth('[[],[],[[]]]', 3)).toBe(false); // siblings do not add up
    expect(exceedsJsonDepth('[[],[],[[[]]]]', 3)).toBe(true);
    expect(exceedsJsonDepth('{"a":{"b":{"c":[{"d":1}]}}}', 5)).toBe(false);
    expect(exceedsJsonDepth('{"a":{"b":{"c":[{"d":1}]}}}', 4)).toBe(true);
  });

  it('the same answer on a string and on its UTF-8 bytes, at exactly the limit and one past it', () => {
    for (const n of [1, 31, 32, 33, 5000]) {
      for (const body of [nested(n), `${'{"k":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`, `{"a":"ünïcödé 😀",${'"b":['.repeat(n - 1)}${']'.repeat(n - 1)}}`]) {
        expect(exceedsJsonDepth(body, 32)).toBe(n > 32);
        expect(exceedsJsonDepth(bytes(body), 32)).toBe(n > 32);
      }
    }
  });

  it('brackets inside strings do not count, escaped quotes do not end a string', () => {
    const s = JSON.stringify({ text: '['.repeat(1000) + '\\"{{{' + '"'.repeat(3), other: '\\' });
    expect(exceedsJsonDepth(s, 1)).toBe(false);
    expect(exceedsJsonDepth(bytes(s), 1)).toBe(false);
    expect(exceedsJsonDepth(`{"a":"\\\\"${'['.repeat(5)}`, 3)).toBe(true); // the string ended at the escaped backslash
  });

  it('a 20 MB body nested all the way is refused at the first bracket past the limit, without recursion', () => {
    const huge = bytes(nested(10_000_000));
    const t0 = Date.now();
    expect(exceedsJsonDepth(huge, 32)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(100);
  });

  it('body-parser verify hook: a 400 of its own type past the limit; UTF-16 bodies decoded first', () => {
    const verify = jsonDepthVerifier(32);
    expect(() => verify(null, null, bytes(nested(32)), 'utf-8')).not.toThrow();
    let err: { status?: number; type?: string; message?: string } = {};
    try { verify(null, null, bytes(nested(33)), 'utf-8'); } catch (e) { err = e as typeof err; }
    expect(err).toMatchObject({ status: 400, type: TOO_DEEP_TYPE });
    expect(err.message).toMatch(/nested deeper than 32 levels/);
    expect(() => verify(null, null, Buffer.from(nested(33), 'utf16le'), 'utf-16le')).toThrow(/deeper than 32/);
    expect(() => verify(null, null, Buffer.from(nested(32), 'utf16le'), 'utf-16le')).not.toThrow();
  });
});
