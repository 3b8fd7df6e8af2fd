import { echoInput, ValidationError } from '../errors';
import { assertStorable, parseRequest, unstorableProblems, unstorableReason } from '../request-schema';
import { IngestDocumentsRequest } from '../../use-cases/collections/ingest-corpus/ingest-corpus.schema';

describe('unstorable input (issue 10)', () => {
  it('finds NUL and lone surrogates, not paired surrogates or other control characters', () => {
    expect(unstorableReason('a\u0000b')).toMatch(/NUL character \(U\+0000\)/);
    expect(unstorableReason('\ud800')).toMatch(/lone UTF-16 surrogate/);
    expect(unstorableReason('x\udc00')).toMatch(/lone UTF-16 surrogate/);
    expect(unstorableReason('\udc00\ud800')).toMatch(/lone UTF-16 surrogate/);
    expect(unstorableReason('emoji 😀 \t\u0001 ok')).toBeUndefined();
  });

  it('names every unstorable string by its path, keys without echoing them', () => {
    expect(unstorableProblems({ a: [{ b: 'x\u0000' }], 'k\u0000': 1, c: { d: '\ud800' } })).toEqual([
      'a[0].b contains a NUL character (U+0000), which cannot be stored',
      'a key in body contains a NUL character (U+0000), which cannot be stored',
      'c.d contains a lone UTF-16 surrogate (invalid Unicode), which cannot be stored',
    ]);
    expect(unstorableProblems('\u0000')).toEqual(['body contains a NUL character (U+0000), which cannot be stored']);
  });

  it('walks a value nested 100,000 deep without recursion (issue 35, item 5), finding the NUL at the bottom', () => {
    let deep: unknown = ['x\u0000'];
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? { a: deep } : [deep];
    const problems = unstorableProblems({ metadata: deep });
    expect(problems).toHaveLength(1);
    // (not toMatch: a failure would print the 400,000-character path)
    expect(problems[0].startsWith('metadata.a[0].a[0].a[0]')).toBe(true);
    expect(problems[0].endsWith('.a[0][0] contains a NUL character (U+0000), which cannot be stored')).toBe(true);
  });

  it('parseRequest refuses a request whose schema accepts it, listing schema problems too', () => {
    expect(() => parseRequest(IngestDocumentsRequest, { documents: [{ text: 'nul\u0000doc' }] }))
      .toThrow('documents[0].text contains a NUL character (U+0000), which cannot be stored');
    try {
      parseRequest(IngestDocumentsRequest, { documents: [{ text: 'nul\u0000doc' }, { text: '' }] });
      throw new Error('not thrown');
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).details).toEqual([
        'documents[0].text contains a NUL character (U+0000), which cannot be stored',
        'documents[1]: text must be a non-empty string',
      ]);
    }
  });

  it('assertStorable names the header / path parameter', () => {
    expect(() => assertStorable('Idempotency-Key', 'k\u0000')).toThrow('Idempotency-Key contains a NUL character (U+0000), which cannot be stored');
    expect(() => assertStorable('Idempotency-Key', undefined)).not.toThrow();
    expect(() => assertStorable('collection', 'fine')).not.toThrow();
  });

  it('echoInput bounds what an error repeats', () => {
    expect(echoInput('short')).toBe('short');
    expect(echoInput('x'.repeat(5000))).toBe(`${'x'.repeat(80)}… (5000 characters)`);
    expect(echoInput('a\u0000b')).toBe('a\\u0000b');
  });
});
