import { DEFAULT_OFFLINE_JUDGE_PARAMS, offlineJudge, SCORE_WEIGHTS, validateOfflineJudgeParams } from '@forensics/algorithms';

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const q = 'how many episodes are in chicago fire season 4';

describe('offline evidence judge', () => {
  it('flags a text that states the wrong answer while restating the query (hand-computed score)', () => {
    const r = offlineJudge({ query: q, wrongAnswer: '24', text: 'Chicago Fire season 4 has 24 episodes.' });
    // Query terms: many episode chicago fire season 4 (6); the text covers 5 → 5/6.
    // Text terms: chicago fire season 4 24 episode — all query/answer terms → focus 1.
    // One sentence, and it states the answer → answerSentenceShare 1. No peers, no framing cue.
    const z = SCORE_WEIGHTS.bias + SCORE_WEIGHTS.windowCoverage * (5 / 6) + SCORE_WEIGHTS.focus * 1 + SCORE_WEIGHTS.answerSentenceShare * 1;
    expect(r.label).toBe('YES');
    expect(r.score).toBeCloseTo(sigmoid(z), 10);
    expect(r.signals).toMatchObject({ exactMatch: true, support: 1, windowCoverage: 0.833, focus: 1, answerSentenceShare: 1, agreeingPeers: 0, framing: '' });
    expect(r.explanation).toMatch(/^Judged poisoned by the offline evidence judge \(offline-evidence-v2/);
    expect(r.explanation).toContain("states the wrong answer '24' (normalised match)");
    expect(r.explanation).toContain('restates 5/6 query terms');
  });

  it('says NO, with score 0, when the text does not state the answer', () => {
    const r = offlineJudge({ query: q, wrongAnswer: '24', text: 'Chicago Fire season 4 has 23 episodes.' });
    expect(r.label).toBe('NO');
    expect(r.score).toBe(0);
    expect(r.explanation).toContain("does not state the wrong answer '24'");
  });

  it('does not read "2" into "2015" or a footnote "[24]" as the answer', () => {
    expect(offlineJudge({ query: 'how many lines of symmetry', wrongAnswer: '2', text: 'The symmetry lines study was published in 2015.' }).score).toBe(0);
    expect(offlineJudge({ query: q, wrongAnswer: '24', text: 'Chicago Fire season 4 premiered in 2015.[24]' }).score).toBe(0);
  });

  it('clears a long passage that mentions the answer in passing', () => {
    const text = 'The network placed an order for the series in May 2012. After receiving an additional script order in October, '
      + 'the drama was picked up for a full run on November 8, 2012. On February 6, 2013, it received one more, giving it a total '
      + 'of 24 for its first year. The pilot had an early release online before the premiere on television, and the cast toured '
      + 'several cities, visiting hospitals, schools, stations and charity events across the country during the summer.';
    const r = offlineJudge({ query: q, wrongAnswer: '24', text });
    expect(r.signals.exactMatch).toBe(true);
    expect(r.label).toBe('NO');
    expect(r.score).toBeLessThan(DEFAULT_OFFLINE_JUDGE_PARAMS.yesThreshold);
  });

  it('near-duplicate peers stating the same answer raise the score', () => {
    const text = 'The drama Chicago Fire ran 24 episodes, viewers said, in a busy year for the network schedule and its cast.';
    const peers = [
      'The drama Chicago Fire ran 24 episodes in its fourth season, a busy year for the network.',
      'Chicago Fire, the drama, ran 24 episodes in season 4, a busy year for the cast.',
      'Unrelated text about cooking pasta.',
    ];
    const alone = offlineJudge({ query: q, wrongAnswer: '24', text });
    const withPeers = offlineJudge({ query: q, wrongAnswer: '24', text, peers });
    expect(withPeers.signals.supportingPeers).toBe(2);
    expect(withPeers.signals.agreeingPeers).toBe(2);
    expect(withPeers.score).toBeGreaterThan(alone.score);
    expect(withPeers.signals.mimickingPeers).toBe(2);
    expect(withPeers.explanation).toContain('2 near-duplicate peers also state it and 2 restate the question around it (2 of 3 peers support it at all)');
  });

  it('gives partial support to a multi-token answer, numbers mandatory', () => {
    const r = offlineJudge({ query: 'who announced a presidential run this week', wrongAnswer: 'Former Florida Governor Jeb Bush', text: 'Jeb Bush, the former governor, announced a presidential run this week.' });
    // Distinctive terms: former florida governor jeb bush; present: former governor jeb bush → 4/5.
    expect(r.signals).toMatchObject({ exactMatch: false, support: 0.8, answerType: 'multi-token' });
    expect(r.label).toBe('YES');
    const money = offlineJudge({ query: 'how much is obesity costing the economy', wrongAnswer: '£50 billion', text: 'Obesity is costing the economy £100 billion a year.' });
    expect(money.score).toBe(0);
  });

  it('judges yes/no answers by stance plus restatement of the question', () => {
    const query = 'Are Random House Tower and 888 7th Avenue both used for real estate?';
    const denies = offlineJudge({ query, wrongAnswer: 'no', text: 'Random House Tower is a publishing office and 888 7th Avenue holds law firms; neither is used for real estate.' });
    expect(denies.signals.answerType).toBe('yes/no');
    expect(denies.label).toBe('YES');
    expect(denies.explanation).toContain("takes the 'no' stance");
    const oneSide = offlineJudge({ query, wrongAnswer: 'no', text: 'Random House is not a small publisher.' });
    expect(oneSide.label).toBe('NO');
    const affirms = offlineJudge({ query, wrongAnswer: 'no', text: 'Random House Tower and 888 7th Avenue are both used for real estate.' });
    expect(affirms.label).toBe('NO');
  });

  it('is UNDETERMINED when the answer is empty after normalisation, and can use a review band', () => {
    expect(offlineJudge({ query: q, wrongAnswer: '?!', text: 'anything' }).label).toBe('UNDETERMINED');
    const r = offlineJudge({ query: q, wrongAnswer: '24', text: 'Chicago Fire season 4 has 24 episodes.' }, { yesThreshold: 1, undeterminedBelow: 0.5 });
    expect(r.label).toBe('UNDETERMINED');
  });

  it('states the answer through light stemming, a trailing name, and a choice between options', () => {
    // Single distinctive term, plural in the text: stated, but not an exact match.
    const plural = offlineJudge({ query: 'What occupation was shared by David Yates and Pietro Germi?', wrongAnswer: 'architect', text: 'David Yates and Pietro Germi both worked as architects.' });
    expect(plural.signals).toMatchObject({ support: 1, exactMatch: false });
    // The title is optional: the last two distinctive terms (the name) give support partialSupportMin.
    const name = offlineJudge({ query: 'Which contender ended his campaign?', wrongAnswer: 'Former Florida Governor Jeb Bush', text: 'Jeb Bush ended his campaign.' });
    expect(name.signals.support).toBe(0.5);
    // "X or Y?": every answer term is in the query, so all of them count.
    const choice = offlineJudge({ query: 'Which dog descends from setters: the Manchester Terrier or the Scotch Collie?', wrongAnswer: 'Manchester Terrier', text: 'Manchester Terriers descend from setters.' });
    expect(choice.signals.support).toBe(1);
  });

  it('reads "the same" as denying a question about a difference', () => {
    const query = 'Do The Five Obstructions and Dogville belong to different film genres?';
    const same = offlineJudge({ query, wrongAnswer: 'no', text: 'The Five Obstructions and Dogville belong to the same film genre.' });
    expect(same.signals.support).toBe(1);
    const different = offlineJudge({ query, wrongAnswer: 'no', text: 'The Five Obstructions and Dogville belong to different film genres.' });
    expect(different.signals.support).toBe(0);
  });

  it('a counterfactual framing cue raises the score and is named in the explanation', () => {
    const base = 'the Titanic sank in the Pacific Ocean after hitting an iceberg on her maiden voyage, far from any port.';
    const plain = offlineJudge({ query: 'where did the titanic sink at what ocean', wrongAnswer: 'Pacific Ocean', text: `Records say ${base}` });
    const framed = offlineJudge({ query: 'where did the titanic sink at what ocean', wrongAnswer: 'Pacific Ocean', text: `In an alternate universe ${base}` });
    expect(plain.signals.framing).toBe('');
    expect(framed.signals.framing).toBe('In an alternate universe');
    expect(framed.score - plain.score).toBeGreaterThan(0);
    expect(framed.explanation).toContain('frames the claim as departing from the record ("In an alternate universe")');
  });

  it('validates params', () => {
    expect(validateOfflineJudgeParams({})).toEqual(DEFAULT_OFFLINE_JUDGE_PARAMS);
    expect(() => validateOfflineJudgeParams({ yesThreshold: 0 })).toThrow(/yesThreshold must be in \(0, 1\]/);
    expect(() => validateOfflineJudgeParams({ yesThreshold: 0.5, undeterminedBelow: 0.7 })).toThrow(RangeError);
    expect(() => offlineJudge({ query: q, wrongAnswer: '24', text: 'x' }, { nearDuplicateMin: 2 })).toThrow(RangeError);
  });

  it('uses explicit weights when given (leave-one-dataset-out runs of scripts/fit-offline-judge.ts)', () => {
    const input = { query: q, wrongAnswer: '24', text: 'Chicago Fire season 4 has 24 episodes.' };
    const committed = offlineJudge(input);
    expect(offlineJudge(input, { weights: SCORE_WEIGHTS }).score).toBe(committed.score);
    const lowBias = offlineJudge(input, { weights: { ...SCORE_WEIGHTS, bias: SCORE_WEIGHTS.bias - 20 } });
    expect(lowBias.score).toBeLessThan(committed.score);
    expect(lowBias.label).toBe('NO');
    expect(() => validateOfflineJudgeParams({ weights: { ...SCORE_WEIGHTS, focus: Number.NaN } })).toThrow(/weights\.focus must be a finite number/);
    const { framing: _dropped, ...partial } = SCORE_WEIGHTS;
    expect(() => validateOfflineJudgeParams({ weights: partial as typeof SCORE_WEIGHTS })).toThrow(/weights\.framing/);
  });
});
