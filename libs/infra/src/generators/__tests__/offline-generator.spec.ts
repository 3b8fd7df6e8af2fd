import { createGenerator } from '../generator.factory';
import { OFFLINE_NO_ANSWER, OfflineGenerator } from '../offline-generator.adapter';
import { OpenAiGenerator } from '../openai-generator.adapter';

describe('OfflineGenerator.generate', () => {
  const gen = new OfflineGenerator();

  it('is labelled offline', () => {
    expect(gen.kind).toBe('offline');
    expect(gen.model).toMatch(/^offline/);
  });

  it('answers with the best sentence of the highest-ranked overlapping context', async () => {
    const r = await gen.generate({
      query: 'Who wrote the novel Moby-Dick?',
      contexts: [
        'The sperm whale is the largest toothed whale.',
        'Whaling was an industry. Moby-Dick is a novel written by Herman Melville in 1851. It sold poorly.',
        'Moby-Dick was written by Charles Dickens.',
      ],
      enhanced: false,
    });
    // Context 1 shares no term; context 2's second sentence shares moby, dick, novel, written.
    expect(r.answer).toBe('Moby-Dick is a novel written by Herman Melville in 1851.');
    expect(r.promptVersion).toBe('offline-extract-v1');
  });

  it('quotes a whole sentence: an initial, an initialism or "Dr." ends none', async () => {
    const contexts = ['The Hobbit is a novel by J. R. R. Tolkien, published in 1937. It was a success.'];
    expect((await gen.generate({ query: 'Who wrote The Hobbit?', contexts, enhanced: false })).answer)
      .toBe('The Hobbit is a novel by J. R. R. Tolkien, published in 1937.');
    const army = ['Founded in 1775, the U.S. Army is the oldest branch of the U.S. military. Dr. Mark Esper led it in 2018.'];
    expect((await gen.generate({ query: 'When was the U.S. Army founded?', contexts: army, enhanced: false })).answer)
      .toBe('Founded in 1775, the U.S. Army is the oldest branch of the U.S. military.');
    // An uncased tokenizer's output: split at ". " all the same, but not inside "u . s .".
    const uncased = ['the u . s . army was founded in 1775 . recruits train at fort benning for ten weeks .'];
    expect((await gen.generate({ query: 'when was the u.s. army founded', contexts: uncased, enhanced: false })).answer)
      .toBe('the u . s . army was founded in 1775 .');
  });

  it('says "I don\'t know" when nothing overlaps (or there are no contexts)', async () => {
    expect((await gen.generate({ query: 'capital of Peru', contexts: ['Bananas are yellow.'], enhanced: false })).answer).toBe(OFFLINE_NO_ANSWER);
    expect((await gen.generate({ query: 'capital of Peru', contexts: [], enhanced: false })).answer).toBe("I don't know");
    expect((await gen.generate({ query: 'the of and', contexts: ['the of and'], enhanced: false })).answer).toBe("I don't know");
  });

  it('with BTE prefers the [LATEST] text even when it is ranked lower, and never outputs markers', async () => {
    const contexts = [
      'Chicago Fire season 4 has 24 episodes according to a fan wiki.',
      '[LATEST] Chicago Fire Season 4 consists of 23 episodes. [/LATEST]',
    ];
    const r = await gen.generate({ query: 'how many episodes are in chicago fire season 4', contexts, enhanced: true });
    expect(r.answer).toBe('Chicago Fire Season 4 consists of 23 episodes.');
    expect(r.promptVersion).toBe('offline-extract-bte-v1');
    const plain = await gen.generate({ query: 'how many episodes are in chicago fire season 4', contexts, enhanced: false });
    expect(plain.answer).toBe('Chicago Fire season 4 has 24 episodes according to a fan wiki.');
    const onlyMarked = await gen.generate({ query: 'chicago fire episodes', contexts: [contexts[1]], enhanced: false });
    expect(onlyMarked.answer).not.toMatch(/LATEST/);
  });
});

describe('OfflineGenerator.benignText', () => {
  const gen = new OfflineGenerator();
  const count = (s: string) => s.split(/\s+/).filter(Boolean).length;

  it('is a declarative template containing the correct answer', async () => {
    const r = await gen.benignText({ query: 'How many episodes are in Chicago Fire season 4?', correctAnswer: '23' });
    expect(r.text).toBe('23 is the answer to the question "How many episodes are in Chicago Fire season 4".');
    expect(r.promptVersion).toBe('offline-template-v1');
  });

  it('stays within 30 words: long questions are shortened, the answer is kept whole', async () => {
    const query = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    const r = await gen.benignText({ query, correctAnswer: 'Herman Melville, an American novelist' });
    expect(count(r.text)).toBeLessThanOrEqual(30);
    expect(r.text).toContain('Herman Melville, an American novelist');
    expect(r.text).toContain('…');
    const longAnswer = Array.from({ length: 40 }, (_, i) => `a${i}`).join(' ');
    const r2 = await gen.benignText({ query: 'q?', correctAnswer: longAnswer });
    expect(count(r2.text)).toBeLessThanOrEqual(30);
    expect(r2.text.startsWith('The answer is a0 a1')).toBe(true);
  });

  it('strips reserved markers from its inputs', async () => {
    const r = await gen.benignText({ query: '[LATEST] who wrote hamlet [/LATEST]', correctAnswer: '[/latest]Shakespeare' });
    expect(r.text).toBe('Shakespeare is the answer to the question "who wrote hamlet".');
  });
});

describe('createGenerator', () => {
  it('is offline without an OpenAI endpoint, OpenAI-compatible with one', () => {
    expect(createGenerator({ openai: {} })).toBeInstanceOf(OfflineGenerator);
    const g = createGenerator({ openai: { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'x' }, judge: { model: 'm1' } });
    expect(g).toBeInstanceOf(OpenAiGenerator);
    expect(g.model).toBe('m1');
    expect(createGenerator({ openai: { baseURL: 'http://127.0.0.1:9/v1' }, generator: { kind: 'offline' } }).kind).toBe('offline');
  });
});
