/** One text's nearest neighbours as the cluster scan keeps them between runs (the readable form of one list). */
export interface ScanNeighbours {
  ids: string[]; scores: number[];
  /** The text's LSH bucket signatures (large collections), so the next run indexes it without projecting it again. */
  lsh?: number[];
}

/**
 * A collection's k-NN lists as the cluster scan keeps them between runs, in index form: text
 * `ids[i]` (i < size) lists `ids[neighbours[offsets[i] .. offsets[i+1])]` with their cosines, best
 * first, and, when `lshTables` > 0, its `lshTables` LSH signatures at `lsh[i·lshTables ..]`. Ids past
 * `size` are neighbours without a list of their own.
 *
 * Why typed arrays and not a Map of id → list: at 100k texts × 20 neighbours a Map holds 2M string
 * references and 2M boxed numbers; loading, reusing and saving it took ~3 s of an incremental run
 * whose target is 10 s. Here a run maps each kept text to its new index once (100k lookups, not 2M),
 * and the graph is written and read as four flat arrays.
 */
export class ScanGraph {
  private index: Map<string, number> | undefined;

  constructor(
    readonly ids: readonly string[],
    readonly size: number,
    readonly offsets: Uint32Array,
    readonly neighbours: Uint32Array,
    readonly scores: Float32Array,
    readonly lshTables: number,
    readonly lsh: Uint32Array,
  ) {
    if (!(size >= 0 && size <= ids.length)) throw new RangeError('ScanGraph: size must be in [0, ids.length]');
    if (offsets.length !== size + 1 || offsets[0] !== 0 || offsets[size] !== neighbours.length) throw new RangeError('ScanGraph: offsets do not frame the neighbour array');
    if (scores.length !== neighbours.length) throw new RangeError('ScanGraph: one score per neighbour');
    if (!(Number.isInteger(lshTables) && lshTables >= 0 && lshTables <= 255) || lsh.length !== size * lshTables) throw new RangeError('ScanGraph: lsh must hold lshTables signatures per listed text');
    for (let i = 0; i < size; i++) if (offsets[i + 1]! < offsets[i]!) throw new RangeError('ScanGraph: offsets must not decrease');
    for (const n of neighbours) if (n >= ids.length) throw new RangeError('ScanGraph: a neighbour index is out of range');
  }

  static empty(): ScanGraph {
    return new ScanGraph([], 0, new Uint32Array(1), new Uint32Array(0), new Float32Array(0), 0, new Uint32Array(0));
  }

  /**
   * From lists in index space (the scan's own form): `lists[i]` is text `ids[i]`'s, neighbour indexes
   * into `ids`. `lshOf(i)` gives its signatures; they are kept only when every text has the same
   * number of them (a text without any would otherwise be indexed wrongly next run).
   */
  static fromIndexLists(ids: readonly string[], lists: readonly { j: readonly number[]; s: readonly number[] }[], lshOf?: (i: number) => ArrayLike<number> | undefined): ScanGraph {
    const n = lists.length;
    const offsets = new Uint32Array(n + 1);
    for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i]! + lists[i]!.j.length;
    const neighbours = new Uint32Array(offsets[n]!);
    const scores = new Float32Array(offsets[n]!);
    for (let i = 0; i < n; i++) { neighbours.set(lists[i]!.j, offsets[i]!); scores.set(lists[i]!.s, offsets[i]!); }
    let tables = n > 0 ? (lshOf?.(0)?.length ?? 0) : 0;
    const lsh = new Uint32Array(n * tables);
    for (let i = 0; i < n && tables > 0; i++) {
      const sig = lshOf!(i);
      if (!sig || sig.length !== tables) { tables = 0; break; }
      lsh.set(sig, i * tables);
    }
    return new ScanGraph(ids, n, offsets, neighbours, scores, tables, tables > 0 ? lsh : new Uint32Array(0));
  }

  /** From readable lists keyed by id (tests, and graphs written by the first codec); neighbours need not have lists. */
  static fromLists(lists: Iterable<readonly [string, ScanNeighbours]>): ScanGraph {
    const entries = [...lists];
    const ids = entries.map(([id]) => id);
    const at = new Map(ids.map((id, i) => [id, i]));
    const idx = (id: string) => { let i = at.get(id); if (i === undefined) { i = ids.length; ids.push(id); at.set(id, i); } return i; };
    const indexLists = entries.map(([, l]) => ({ j: l.ids.map(idx), s: l.scores }));
    return ScanGraph.fromIndexLists(ids, indexLists, (i) => entries[i]![1].lsh);
  }

  /** Index of a text that has a list, or undefined. */
  indexOf(id: string): number | undefined {
    if (!this.index) { this.index = new Map(); for (let i = 0; i < this.size; i++) this.index.set(this.ids[i]!, i); }
    return this.index.get(id);
  }

  has(id: string): boolean { return this.indexOf(id) !== undefined; }

  /** Text i's signatures (a view), or undefined when the graph keeps none. */
  signature(i: number): Uint32Array | undefined {
    return this.lshTables > 0 ? this.lsh.subarray(i * this.lshTables, (i + 1) * this.lshTables) : undefined;
  }

  /** The readable list of a text (cosines to 6 decimals, as the scan reports them), or undefined. */
  get(id: string): ScanNeighbours | undefined {
    const i = this.indexOf(id);
    return i === undefined ? undefined : this.listAt(i);
  }

  *entries(): IterableIterator<[string, ScanNeighbours]> {
    for (let i = 0; i < this.size; i++) yield [this.ids[i]!, this.listAt(i)];
  }

  *values(): IterableIterator<ScanNeighbours> {
    for (const [, l] of this.entries()) yield l;
  }

  private listAt(i: number): ScanNeighbours {
    const from = this.offsets[i]!, to = this.offsets[i + 1]!;
    const out: ScanNeighbours = {
      ids: Array.from(this.neighbours.subarray(from, to), (j) => this.ids[j]!),
      scores: Array.from(this.scores.subarray(from, to), (s) => Math.round(s * 1e6) / 1e6),
    };
    const sig = this.signature(i);
    if (sig) out.lsh = Array.from(sig);
    return out;
  }
}
