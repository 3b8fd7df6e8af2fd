import { fnv1a, insertedCase, plantedOfPrefixed } from '../span-localisation';

describe('span localisation sets', () => {
  it('the planted part of a GMTP text: after its prefix, or the payload it starts with', () => {
    expect(plantedOfPrefixed('xx yy the claim.', 'xx yy ', 'The claim.')).toEqual({ start: 6, end: 16 });
    expect(plantedOfPrefixed('The claim. tokens', ' tokens', 'The claim.')).toEqual({ start: 0, end: 10 });
    expect(plantedOfPrefixed('neither here', 'xx', 'yy')).toBeUndefined();
  });

  it('inserts one poisoned text as its own paragraph, at a seeded boundary, and knows where', () => {
    const r = { id: 'q1', question: 'q?', incorrect_answer: 'A', poisoned_texts: ['P one.', 'P two.'], clean_texts: ['C1 '.repeat(300).trim(), 'C2 '.repeat(300).trim(), 'C3'] };
    const a = insertedCase('f', r)!;
    const b = insertedCase('f', r)!;
    expect(a).toEqual(b); // same seed, same document
    expect(['P one.', 'P two.']).toContain(a.text.slice(a.planted.start, a.planted.end));
    // The document stops at 1,200 characters (two clean texts here); the third is a peer.
    expect(a.text.split('\n\n')).toHaveLength(3);
    expect(a.peers).toContain('C3');
    expect(insertedCase('f', { ...r, clean_texts: ['only one'] })).toBeUndefined();
  });

  it('fnv1a matches the published 32-bit test vectors', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });
});
