import { ScanGraph } from '@forensics/core';

/**
 * Binary form of a collection's cluster-scan graph (ScanGraph: ids, list offsets, neighbour indexes,
 * cosines, LSH signatures), written by our own code because the layout is ours and small: a JSON or
 * one-row-per-text form spends its time on 2M copies of 36-character ids (100k texts × 20 neighbours).
 *
 * "SG2" layout (little endian): magic | u32 idCount | u32 size | u8 lshTables | u8 lshBytes | ids |
 * u32 offsets[size+1] | u32 neighbours[] | f32 scores[] | lsh[size·lshTables] (u16 when every signature
 * fits, as the default 12-bit ones do, else u32). An id is tag 0 + 16 bytes (a UUID) or
 * tag 1 + u16 length + UTF-8. The four arrays are copied as whole blocks (they are the bulk of the
 * bytes), so writing and reading 100k texts' lists takes tens of milliseconds, not seconds.
 * "SG1" (the first form: one record per text) is still read, so a graph kept by an older version is reused.
 */
const MAGIC = 'SG2';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// The arrays are copied as the machine lays them out; every platform Node ships for is little endian.
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function block(a: Uint32Array | Uint16Array | Float32Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

export function encodeScanGraph(g: ScanGraph): Buffer {
  if (!LITTLE_ENDIAN) throw new Error('scan graph codec: big-endian machines are not supported');
  const encoded = g.ids.map((id) => (UUID.test(id) ? null : Buffer.from(id, 'utf8')));
  let idBytes = 0;
  for (const e of encoded) {
    if (e && e.length > 0xffff) throw new RangeError('a scan graph id is longer than 65535 bytes');
    idBytes += e ? 3 + e.length : 17;
  }
  const narrow = g.lsh.every((x) => x <= 0xffff);
  const head = Buffer.alloc(3 + 4 + 4 + 1 + 1 + idBytes);
  let o = head.write(MAGIC, 0, 'latin1');
  o = head.writeUInt32LE(g.ids.length, o);
  o = head.writeUInt32LE(g.size, o);
  o = head.writeUInt8(g.lshTables, o);
  o = head.writeUInt8(narrow ? 2 : 4, o);
  g.ids.forEach((id, i) => {
    const e = encoded[i];
    if (e) { o = head.writeUInt8(1, o); o = head.writeUInt16LE(e.length, o); o += e.copy(head, o); } else { o = head.writeUInt8(0, o); o += head.write(id.replace(/-/g, ''), o, 'hex'); }
  });
  return Buffer.concat([head, block(g.offsets), block(g.neighbours), block(g.scores), block(narrow ? Uint16Array.from(g.lsh) : g.lsh)]);
}

/** A block of `n` values at `o`, copied into its own (aligned) array. */
function take<T extends Uint32Array | Uint16Array | Float32Array>(buf: Buffer, o: number, n: number, make: { new (n: number): T; BYTES_PER_ELEMENT: number }): T {
  const bytes = n * make.BYTES_PER_ELEMENT;
  if (o + bytes > buf.length) throw new Error('scan graph is truncated');
  const out = new make(n);
  block(out).set(buf.subarray(o, o + bytes));
  return out;
}

function readIds(buf: Buffer, o: number, count: number): { ids: string[]; o: number } {
  const ids: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const tag = buf.readUInt8(o); o += 1;
    if (tag === 0) {
      const h = buf.toString('hex', o, o + 16); o += 16;
      ids[i] = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    } else {
      const len = buf.readUInt16LE(o); o += 2;
      ids[i] = buf.toString('utf8', o, o + len); o += len;
    }
  }
  return { ids, o };
}

export function decodeScanGraph(buf: Buffer): ScanGraph {
  const magic = buf.toString('latin1', 0, 3);
  if (magic === 'SG1') return decodeFirstForm(buf);
  if (magic !== MAGIC) throw new Error('not a scan graph (bad magic)');
  if (!LITTLE_ENDIAN) throw new Error('scan graph codec: big-endian machines are not supported');
  const idCount = buf.readUInt32LE(3);
  const size = buf.readUInt32LE(7);
  const tables = buf.readUInt8(11);
  const lshBytes = buf.readUInt8(12);
  if (lshBytes !== 2 && lshBytes !== 4) throw new Error('scan graph: bad signature width');
  const { ids, o } = readIds(buf, 13, idCount);
  const offsets = take(buf, o, size + 1, Uint32Array);
  const edges = offsets[size]!;
  const neighbours = take(buf, o + (size + 1) * 4, edges, Uint32Array);
  const scores = take(buf, o + (size + 1 + edges) * 4, edges, Float32Array);
  const at = o + (size + 1 + 2 * edges) * 4;
  const lsh = lshBytes === 4 ? take(buf, at, size * tables, Uint32Array) : Uint32Array.from(take(buf, at, size * tables, Uint16Array));
  return new ScanGraph(ids, size, offsets, neighbours, scores, tables, lsh);
}

/** "SG1": u32 idCount | ids | u32 entryCount | entries (u32 id index, u8 k, u8 lsh count, k × u32 neighbour, k × f32 cosine, lsh × u32). */
function decodeFirstForm(buf: Buffer): ScanGraph {
  const read = readIds(buf, 7, buf.readUInt32LE(3));
  const ids = read.ids;
  let o = read.o;
  const n = buf.readUInt32LE(o); o += 4;
  const lists: [string, { ids: string[]; scores: number[]; lsh?: number[] }][] = [];
  for (let e = 0; e < n; e++) {
    const id = ids[buf.readUInt32LE(o)]!; o += 4;
    const k = buf.readUInt8(o); const g = buf.readUInt8(o + 1); o += 2;
    const nb = Array.from({ length: k }, (_, x) => ids[buf.readUInt32LE(o + x * 4)]!); o += k * 4;
    const sc = Array.from({ length: k }, (_, x) => buf.readFloatLE(o + x * 4)); o += k * 4;
    const lsh = g > 0 ? Array.from({ length: g }, (_, x) => buf.readUInt32LE(o + x * 4)) : undefined; o += g * 4;
    lists.push([id, lsh ? { ids: nb, scores: sc, lsh } : { ids: nb, scores: sc }]);
  }
  return ScanGraph.fromLists(lists);
}
