import { l2Normalize, meanPool } from '../pooling';

describe('meanPool', () => {
  it('averages only positions whose mask is 1 (hand-computed)', () => {
    // batch 2, seq 3, dim 2; row 0 has one padding position holding large values.
    const hidden = Float32Array.from([1, 2, 3, 4, 100, 100, /* row 1 */ 1, 1, 2, 2, 6, 3]);
    const mask = BigInt64Array.from([1n, 1n, 0n, 1n, 1n, 1n]);
    const [a, b] = meanPool(hidden, mask, 2, 3, 2);
    expect(Array.from(a)).toEqual([2, 3]); // ((1+3)/2, (2+4)/2)
    expect(Array.from(b)).toEqual([3, 2]); // ((1+2+6)/3, (1+2+3)/3)
  });

  it('returns zeros for an all-padding row instead of NaN', () => {
    const [v] = meanPool(Float32Array.from([5, 5]), BigInt64Array.from([0n]), 1, 1, 2);
    expect(Array.from(v)).toEqual([0, 0]);
  });
});

describe('l2Normalize', () => {
  it('scales a 3-4-5 vector to (0.6, 0.8) in place', () => {
    const v = Float32Array.from([3, 4]);
    expect(l2Normalize(v)).toBe(v);
    expect(v[0]).toBeCloseTo(0.6, 7);
    expect(v[1]).toBeCloseTo(0.8, 7);
  });

  it('leaves a zero vector at zero', () => {
    expect(Array.from(l2Normalize(new Float32Array(3)))).toEqual([0, 0, 0]);
  });
});
