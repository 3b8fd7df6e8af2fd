/**
 * Exact dot-product kernel for the embedded vector store: scores many query vectors against every
 * row of a float32 matrix in ONE pass over the matrix (BiRD issues k+1 searches per event).
 *
 * The kernel is a tiny WebAssembly SIMD module generated below from opcodes (no build step, no
 * binary blob): per matrix row, queries are processed in register groups of 7, then 3, then 1 (7 accumulators + row + query fit the 16 SIMD registers V8 uses on x64; measured fastest), each
 * query accumulating 4 float32 lanes over the row and reducing them as (l0 + l1) + (l2 + l3).
 * Because every query is accumulated in exactly the same order whatever group it falls in, a query
 * scored alone and the same query scored inside a batch give bit-identical results — `search` and
 * `searchBatch` therefore agree exactly, ties included.
 *
 * Memory layout (float32, dimension padded with zeros to a multiple of 4 = `dimP`):
 *   matrix  at byte 0:            row r at r * dimP
 *   queries at `queryByteOffset`: group after group (greedy 7s, then 3s, then 1s); inside a group of
 *                                 G queries the vectors are interleaved by 4-float chunks:
 *                                 chunk c of query i at (c * G + i) * 4 floats from the group start
 *   scores  at `outByteOffset`:   score of (row r, query j) at j * nRows + r (query-major, so a
 *                                 top-k scan per query reads contiguous memory)
 * When WebAssembly SIMD is unavailable a plain-JS kernel with the same float32 accumulation order
 * (Math.fround after every operation) is used instead, so results are identical either way.
 */

const GROUPS = [7, 3, 1] as const;

// ---- minimal WebAssembly encoder ----------------------------------------------------------------
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}
const str = (s: string): number[] => [...uleb(s.length), ...Array.from(Buffer.from(s, 'utf8'))];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (d: number) => [0x0c, ...uleb(d)],
  brIf: (d: number) => [0x0d, ...uleb(d)],
  get: (l: number) => [0x20, ...uleb(l)],
  set: (l: number) => [0x21, ...uleb(l)],
  i32: (v: number) => [0x41, ...sleb(v)],
  i32Add: [0x6a],
  i32Mul: [0x6c],
  i32GtU: [0x4b],
  i32GeU: [0x4f],
  i32LtU: [0x49],
  f32Add: [0x92],
  f32Store: (offset: number) => [0x38, 0x02, ...uleb(offset)],
  v128Load: (offset: number) => [0xfd, ...uleb(0x00), 0x04, ...uleb(offset)],
  v128Zero: [0xfd, ...uleb(0x0c), ...new Array<number>(16).fill(0)],
  f32x4Extract: (lane: number) => [0xfd, ...uleb(0x1f), lane],
  f32x4Add: [0xfd, ...uleb(0xe4)],
  f32x4Mul: [0xfd, ...uleb(0xe6)],
};

/**
 * scores(mat, nRows, dimBytes, q, nQ, out): see the layout above.
 * Params 0..5; i32 locals 6.. ; v128 locals after.
 */
function buildModule(): Uint8Array<ArrayBuffer> {
  const [MAT, NROWS, DIMB, Q, NQ, OUT] = [0, 1, 2, 3, 4, 5];
  const [R, ROW, J, QP, K, ORow, QK] = [6, 7, 8, 9, 10, 11, 12];
  const I32_LOCALS = 7;
  const M = 13; // v128: the current row chunk
  const ACC = 14; // v128 accumulators ACC .. ACC+7
  const maxG = Math.max(...GROUPS);

  const body: number[] = [];
  const emit = (...parts: number[][]) => parts.forEach((p) => body.push(...p));

  // r = 0; loop over rows
  emit(op.i32(0), op.set(R));
  emit(op.block, op.loop); // depth: block(rows-exit)=1, loop(rows)=0
  emit(op.get(R), op.get(NROWS), op.i32GeU, op.brIf(1));
  // row = mat + r * dimBytes ; oRow = out + r * 4 ; qp = q ; j = 0
  emit(op.get(MAT), op.get(R), op.get(DIMB), op.i32Mul, op.i32Add, op.set(ROW));
  emit(op.get(OUT), op.get(R), op.i32(4), op.i32Mul, op.i32Add, op.set(ORow));
  emit(op.get(Q), op.set(QP), op.i32(0), op.set(J));
  for (const G of GROUPS) {
    emit(op.block, op.loop); // while (j + G <= nQ)
    emit(op.get(J), op.i32(G), op.i32Add, op.get(NQ), op.i32GtU, op.brIf(1));
    for (let i = 0; i < G; i++) emit(op.v128Zero, op.set(ACC + i));
    emit(op.i32(0), op.set(K), op.get(QP), op.set(QK));
    emit(op.loop); // over 4-float chunks: k in bytes, qk = qp + k * G
    emit(op.get(ROW), op.get(K), op.i32Add, op.v128Load(0), op.set(M));
    for (let i = 0; i < G; i++) {
      // acc_i += qChunk_i * m ; qChunk_i at qk + i * 16
      emit(op.get(ACC + i));
      emit(op.get(QK), op.v128Load(i * 16));
      emit(op.get(M), op.f32x4Mul, op.f32x4Add, op.set(ACC + i));
    }
    emit(op.get(K), op.i32(16), op.i32Add, op.set(K));
    emit(op.get(QK), op.i32(16 * G), op.i32Add, op.set(QK));
    emit(op.get(K), op.get(DIMB), op.i32LtU, op.brIf(0));
    emit(op.end);
    for (let i = 0; i < G; i++) {
      // out[(j + i) * nRows + r] = (l0 + l1) + (l2 + l3)
      emit(op.get(ORow), op.get(J), op.i32(i), op.i32Add, op.get(NROWS), op.i32Mul, op.i32(4), op.i32Mul, op.i32Add);
      emit(op.get(ACC + i), op.f32x4Extract(0), op.get(ACC + i), op.f32x4Extract(1), op.f32Add);
      emit(op.get(ACC + i), op.f32x4Extract(2), op.get(ACC + i), op.f32x4Extract(3), op.f32Add);
      emit(op.f32Add, op.f32Store(0));
    }
    // qp += G * dimBytes ; j += G
    emit(op.get(QP), op.get(DIMB), op.i32(G), op.i32Mul, op.i32Add, op.set(QP));
    emit(op.get(J), op.i32(G), op.i32Add, op.set(J));
    emit(op.br(0), op.end, op.end);
  }
  emit(op.get(R), op.i32(1), op.i32Add, op.set(R), op.br(0));
  emit(op.end, op.end, op.end); // loop, block, function

  const locals = vec([
    [...uleb(I32_LOCALS), I32],
    [...uleb(1 + maxG), V128],
  ]);
  const code = [...locals, ...body];
  const bytes = [
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec([[0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32]]), 0x00]])),
    ...section(2, vec([[...str('env'), ...str('memory'), 0x02, 0x00, 0x01]])),
    ...section(3, vec([[0x00]])),
    ...section(7, vec([[...str('scores'), 0x00, 0x00]])),
    ...section(10, vec([[...uleb(code.length), ...code]])),
  ];
  return new Uint8Array(bytes);
}

type ScoresFn = (mat: number, nRows: number, dimBytes: number, q: number, nQ: number, out: number) => void;

let compiled: WebAssembly.Module | null | undefined;
function wasmModule(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  try {
    const bytes = buildModule();
    compiled = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  } catch {
    compiled = null;
  }
  return compiled;
}

/** Zero-padded dimension used in the matrix layout. */
export const paddedDimension = (dim: number): number => Math.ceil(dim / 4) * 4;

/** Where the packed query group starts for query j (the greedy 7/3/1 grouping) and its group size. */
function groupOf(j: number, nQ: number): { start: number; size: number } {
  let start = 0;
  for (const G of GROUPS) {
    while (start + G <= nQ) {
      if (j < start + G) return { start, size: G };
      start += G;
    }
  }
  throw new RangeError(`query ${j} out of ${nQ}`);
}

/**
 * A growable float32 matrix living in (WebAssembly) memory plus the exact scoring pass.
 * Rows are stored raw (exact float32 as written); callers normalise queries / scale by row norms.
 */
export class ExactMatrix {
  readonly dim: number;
  readonly dimP: number;
  readonly simd: boolean;
  private rows = 0;
  private memory: WebAssembly.Memory | null = null;
  private jsBuffer: ArrayBuffer | null = null;
  private scoresFn: ScoresFn | null = null;

  constructor(dim: number, capacityRows: number, opts: { forceJs?: boolean } = {}) {
    this.dim = dim;
    this.dimP = paddedDimension(dim);
    const mod = opts.forceJs ? null : wasmModule();
    this.simd = mod !== null;
    const bytes = Math.max(1, capacityRows) * this.dimP * 4;
    if (mod) {
      this.memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / 65536) + 1 });
      const instance = new WebAssembly.Instance(mod, { env: { memory: this.memory } });
      this.scoresFn = instance.exports.scores as unknown as ScoresFn;
    } else {
      this.jsBuffer = new ArrayBuffer(bytes);
    }
  }

  get size(): number {
    return this.rows;
  }

  private buffer(): ArrayBuffer {
    return this.memory ? this.memory.buffer : (this.jsBuffer as ArrayBuffer);
  }

  /** Makes sure `bytes` bytes are addressable (grows memory; views must be re-created afterwards). */
  private reserve(bytes: number): void {
    const have = this.buffer().byteLength;
    if (bytes <= have) return;
    if (this.memory) {
      const pages = Math.ceil((bytes - have) / 65536);
      // grow at least geometrically to amortise appends
      this.memory.grow(Math.max(pages, Math.ceil(have / 65536 / 4)));
    } else {
      const next = new ArrayBuffer(Math.ceil(Math.max(bytes, have * 1.25) / 64) * 64);
      new Uint8Array(next).set(new Uint8Array(this.jsBuffer as ArrayBuffer));
      this.jsBuffer = next;
    }
  }

  /** Writes row `index` (0 ≤ index ≤ size; index === size appends). */
  setRow(index: number, vector: ArrayLike<number>): void {
    if (index > this.rows) throw new RangeError('non-contiguous row');
    this.reserve((index + 1) * this.dimP * 4);
    const view = new Float32Array(this.buffer(), index * this.dimP * 4, this.dimP);
    view.fill(0);
    for (let d = 0; d < this.dim; d++) view[d] = vector[d];
    if (index === this.rows) this.rows++;
  }

  /** Copies row `from` over row `to` (swap-remove support). */
  moveRow(from: number, to: number): void {
    const f32 = new Float32Array(this.buffer());
    f32.copyWithin(to * this.dimP, from * this.dimP, (from + 1) * this.dimP);
  }

  /** Drops the last row. */
  pop(): void {
    if (this.rows > 0) this.rows--;
  }

  /** A copy of row `index` (exact float32). */
  row(index: number): Float32Array {
    return new Float32Array(this.buffer(), index * this.dimP * 4, this.dim).slice();
  }

  /**
   * Dot products of every row with each query, in one pass over the matrix.
   * Returns a query-major Float32Array: score(row r, query j) at j * size + r.
   * The returned array is a fresh copy (safe to keep).
   */
  scores(queries: readonly Float32Array[]): Float32Array {
    const nQ = queries.length;
    const n = this.rows;
    if (nQ === 0 || n === 0) return new Float32Array(n * nQ);
    const dimP = this.dimP;
    const qOff = n * dimP * 4;
    const outOff = qOff + nQ * dimP * 4;
    this.reserve(outOff + n * nQ * 4);
    const f32 = new Float32Array(this.buffer());
    // pack queries: group-interleaved by 4-float chunks (see header)
    const qBase = qOff / 4;
    f32.fill(0, qBase, qBase + nQ * dimP);
    for (let j = 0; j < nQ; j++) {
      const { start, size } = groupOf(j, nQ);
      const i = j - start;
      const groupBase = qBase + start * dimP;
      const q = queries[j];
      for (let d = 0; d < this.dim; d++) {
        const c = d >> 2;
        f32[groupBase + (c * size + i) * 4 + (d & 3)] = q[d];
      }
    }
    if (this.scoresFn) {
      this.scoresFn(0, n, dimP * 4, qOff, nQ, outOff);
    } else {
      jsScores(f32, n, dimP, qBase, nQ, outOff / 4);
    }
    return new Float32Array(this.buffer(), outOff, n * nQ).slice();
  }
}

/** Same arithmetic as the WebAssembly kernel, float32 rounding after every operation. */
function jsScores(f32: Float32Array, n: number, dimP: number, qBase: number, nQ: number, outBase: number): void {
  const fr = Math.fround;
  const chunks = dimP >> 2;
  for (let r = 0; r < n; r++) {
    const row = r * dimP;
    for (let j = 0; j < nQ; j++) {
      const { start, size } = groupOf(j, nQ);
      const i = j - start;
      const groupBase = qBase + start * dimP;
      let l0 = 0;
      let l1 = 0;
      let l2 = 0;
      let l3 = 0;
      for (let c = 0; c < chunks; c++) {
        const q = groupBase + (c * size + i) * 4;
        const m = row + c * 4;
        l0 = fr(l0 + fr(f32[q] * f32[m]));
        l1 = fr(l1 + fr(f32[q + 1] * f32[m + 1]));
        l2 = fr(l2 + fr(f32[q + 2] * f32[m + 2]));
        l3 = fr(l3 + fr(f32[q + 3] * f32[m + 3]));
      }
      f32[outBase + j * n + r] = fr(fr(l0 + l1) + fr(l2 + l3));
    }
  }
}
