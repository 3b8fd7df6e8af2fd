import type { ScanNeighbours } from '@forensics/core';

/**
 * Binary form of a collection's cluster-scan graph (document id → neighbour ids, cosines, LSH
 * signatures), written by our own code because the layout is ours and small: a JSON or one-row-per-text
 * form spends its time on 2M copies of 36-character ids (100k texts × 20 neighbours). Layout (little
 * endian): "SG1" | u32 idCount | ids | u32 entryCount | entries. An id is tag 0 + 16 bytes (a UUID) or
 * tag 1 + u16 length + UTF-8. An entry: u32 id index, u8 k, u8 lsh count, k × u32 neighbour index,
 * k × f32 cosine (read back rounded to 6 decimals, as the scan writes them), lsh × u32 signature.
 */
const MAGIC = 'SG1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeScanGraph(graph: ReadonlyMap<string, ScanNeighbours>): Buffer {
  const index = new Map<string, number>();
  const ids: string[] = [];
  const intern = (id: string) => { let i = index.get(id); if (i === undefined) { i = ids.length; ids.push(id); index.set(id, i); } return i; };
  for (const [id, l] of graph) { intern(id); for (const n of l.ids) intern(n); }
  let size = 3 + 4 + 4;
  const encoded = ids.map((id) => (UUID.test(id) ? null : Buffer.from(id, 'utf8')));
  for (const e of encoded) size += e ? 3 + e.length : 17;
  for (const [, l] of graph) {
    if (l.ids.length > 255 || (l.lsh?.length ?? 0) > 255) throw new RangeError('a scan list holds at most 255 neighbours and 255 signatures');
    size += 4 + 1 + 1 + l.ids.length * 8 + (l.lsh?.length ?? 0) * 4;
  }
  const buf = Buffer.alloc(size);
  let o = buf.write(MAGIC, 0, 'latin1');
  o = buf.writeUInt32LE(ids.length, o);
  ids.forEach((id, i) => {
    const e = encoded[i];
    if (e) { o = buf.writeUInt8(1, o); o = buf.writeUInt16LE(e.length, o); o += e.copy(buf, o); } else { o = buf.writeUInt8(0, o); o += buf.write(id.replace(/-/g, ''), o, 'hex'); }
  });
  o = buf.writeUInt32LE(graph.size, o);
  for (const [id, l] of graph) {
    o = buf.writeUInt32LE(index.get(id)!, o);
    o = buf.writeUInt8(l.ids.length, o);
    o = buf.writeUInt8(l.lsh?.length ?? 0, o);
    for (const n of l.ids) o = buf.writeUInt32LE(index.get(n)!, o);
    for (const s of l.scores) o = buf.writeFloatLE(s, o);
    for (const g of l.lsh ?? []) o = buf.writeUInt32LE(g >>> 0, o);
  }
  return buf;
}

export function decodeScanGraph(buf: Buffer): Map<string, ScanNeighbours> {
  if (buf.toString('latin1', 0, 3) !== MAGIC) throw new Error('not a scan graph (bad magic)');
  let o = 3;
  const idCount = buf.readUInt32LE(o); o += 4;
  const ids: string[] = new Array(idCount);
  for (let i = 0; i < idCount; i++) {
    const tag = buf.readUInt8(o); o += 1;
    if (tag === 0) {
      const h = buf.toString('hex', o, o + 16); o += 16;
      ids[i] = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    } else {
      const len = buf.readUInt16LE(o); o += 2;
      ids[i] = buf.toString('utf8', o, o + len); o += len;
    }
  }
  const n = buf.readUInt32LE(o); o += 4;
  const out = new Map<string, ScanNeighbours>();
  for (let e = 0; e < n; e++) {
    const id = ids[buf.readUInt32LE(o)]!; o += 4;
    const k = buf.readUInt8(o); const g = buf.readUInt8(o + 1); o += 2;
    const nb: string[] = new Array(k);
    const sc: number[] = new Array(k);
    for (let x = 0; x < k; x++) { nb[x] = ids[buf.readUInt32LE(o)]!; o += 4; }
    for (let x = 0; x < k; x++) { sc[x] = Math.round(buf.readFloatLE(o) * 1e6) / 1e6; o += 4; }
    const entry: ScanNeighbours = { ids: nb, scores: sc };
    if (g > 0) { const lsh: number[] = new Array(g); for (let x = 0; x < g; x++) { lsh[x] = buf.readUInt32LE(o); o += 4; } entry.lsh = lsh; }
    out.set(id, entry);
  }
  return out;
}
