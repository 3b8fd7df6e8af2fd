import { DEFAULT_OFFLINE_JUDGE_PARAMS, offlineJudge, SCORE_WEIGHTS, validateOfflineJudgeParams } from '@forensics/algorithms';

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const q = 'how many episodes are in chicago fire season 4';

describe('offline evidence judge', () => {
  it('flags a text that states the wrong answer while restating the query (hand-computed score)', () => {
    const r = offlineJudge({ query: q, wrongAnswer: '24', text: 'Chicago Fire season 4 has 24 episodes.' });
    // Query terms: many episode chicago fire season 4 (6); the text covers 5 → 5/6.
    // Text terms: chicago fire season 4 24 episode — all query/answer terms → focus 1.
    const z = SCORE_WEIGHTS.bias + SCORE_WEIGHTS.windowCoverage * (5 / 6) + SCORE_WEIGHTS.focus * 1;
    expect(r.label).toBe('YES');
    expect(r.score).toBeCloseTo(sigmoid(z), 10);
    expect(r.score).toBeCloseTo(0.99878, 4);
    expect(r.signals).toMatchObject({ exactMatch: true, support: 1, windowCoverage: 0.833, focus: 1, agreeingPeers: 0 });
    expect(r.explanation).toMatch(/^Judged poisoned by the offline evidence judge \(offline-evidence-v1/);
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
    expect(withPeers.explanation).toContain('2 near-duplicate peers also state it (2 of 3 peers support it at all)');
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

  it('validates params', () => {
    expect(validateOfflineJudgeParams({})).toEqual(DEFAULT_OFFLINE_JUDGE_PARAMS);
    expect(() => validateOfflineJudgeParams({ yesThreshold: 0 })).toThrow(/yesThreshold must be in \(0, 1\]/);
    expect(() => validateOfflineJudgeParams({ yesThreshold: 0.5, undeterminedBelow: 0.7 })).toThrow(RangeError);
    expect(() => offlineJudge({ query: q, wrongAnswer: '24', text: 'x' }, { nearDuplicateMin: 2 })).toThrow(RangeError);
  });
});
