import { longestContentRun } from '../token-salad';

describe('longestContentRun', () => {
  it('is short for prose: function words break every few words', () => {
    expect(longestContentRun('The river flows north, and its longest tributary joins it near the old mill town.')).toBeLessThan(8);
  });

  it('measures a run of gibberish, allowing one stray function word inside it', () => {
    const salad = 'quorn velta abrim stoke lanter pivex on domber quillo hastrem norvik pelto';
    expect(longestContentRun(`${salad}. The river is long.`)).toBe(12);
    // A second function word ends the window: the longest stretch with at most one is counted.
    expect(longestContentRun('alpha beta the gamma delta of epsilon zeta')).toBe(5);
  });

  it('is 0 for an empty text', () => {
    expect(longestContentRun('')).toBe(0);
  });
});
