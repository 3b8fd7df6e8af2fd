import { FixedSizeList, Field, Float32, makeData, makeVector } from 'apache-arrow';
import { flatVectors } from '../lancedb-vector-store.adapter';

describe('flatVectors (a FixedSizeList<Float32> column read row by row)', () => {
  const dim = 3;
  const rows = Array.from({ length: 7 }, (_, r) => [r + 0.5, -r, r * 10]);
  const child = makeData({ type: new Float32(), length: rows.length * dim, data: Float32Array.from(rows.flat()) });
  const list = makeVector(makeData({ type: new FixedSizeList(dim, new Field('item', new Float32(), true)), length: rows.length, nullCount: 0, child }));

  it.each([false, true])('returns each row exactly (view=%s), also on a sliced column, as Arrow\'s own accessor does', (view) => {
    const whole = flatVectors(list, view);
    rows.forEach((v, r) => expect(Array.from(whole(r))).toEqual(v));
    const sliced = list.slice(2, 6);
    const get = flatVectors(sliced, view);
    for (let r = 0; r < sliced.length; r++) {
      expect(Array.from(get(r))).toEqual(Array.from((sliced.get(r) as { toArray(): Float32Array }).toArray()));
      expect(Array.from(get(r))).toEqual(rows[r + 2]);
    }
  });

  it('copies (view=false): writing to a returned vector does not change the column', () => {
    const v = flatVectors(list)(1);
    v[0] = 99;
    expect(Array.from(flatVectors(list)(1))).toEqual(rows[1]);
  });
});
