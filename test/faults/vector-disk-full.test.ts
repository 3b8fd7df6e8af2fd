/**
 * Fault: the vector store's directory runs out of space. DATA_DIR/vectors is a small tmpfs (we
 * run as root; where `mount -t tmpfs` is not permitted — no root, no CAP_SYS_ADMIN — the test is
 * skipped with that message), filled to the last byte after the corpus is ingested, with the API
 * and the worker in this process on the shared test Postgres + Redis.
 *
 * While the disk is full: ingestion answers an error within its bound and leaves no vector without
 * a document (Postgres is written first; the texts stay unserved until re-ingested); reports are
 * accepted (202); their traces quarantine in Postgres but cannot write the store flag — a full disk
 * is a store outage (ENOSPC is a transient failure), so the events stay pending, never FAILED.
 * Space freed → the reconciler re-drives them, the quarantines reach the store, every report
 * completes; re-ingesting the refused texts repairs them.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IngestCorpusUseCase } from '@forensics/core';
import { assertInvariants, CORPUS, judgeEnv, printFaultLine, report, scriptJudge, timedRequest, waitTerminal, type Timed } from '../support/faults/fault-kit';
import { startOpenAiTestServer, type OpenAiTestServer } from '../support/openai-test-server';
import { createTestApp, type TestApp } from '../support/test-app';
import { uniqueName } from '../support/test-runtime';

const REQUEST_BOUND_MS = 5_000;
const FULL_FOR_MS = 8_000;

/** Whether this machine lets us mount a tmpfs (root with CAP_SYS_ADMIN); the reason when not. */
function tmpfsProbe(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return 'not running as root (mount -t tmpfs needs root)';
  const dir = mkdtempSync(join(tmpdir(), 'forensics-tmpfs-probe-'));
  try {
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { encoding: 'utf8' });
    if (r.status !== 0) return `mount -t tmpfs failed: ${(r.stderr || r.error?.message || '').trim()}`;
    spawnSync('umount', [dir]);
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const notPractical = tmpfsProbe();
if (notPractical) process.stderr.write(`[vector-disk-full] skipped: a disk-full vector store needs a small tmpfs, and ${notPractical}\n`);
const maybe = notPractical ? it.skip : it;

/** Fills the file system under `dir` to the last byte; returns the filler files (delete them to free it). */
function fill(dir: string): string[] {
  const files: string[] = [];
  for (let i = 0; ; i++) {
    const free = statfsSync(dir).bavail * statfsSync(dir).bsize;
    if (free <= 0) break;
    const f = join(dir, `filler-${i}`);
    try { writeFileSync(f, Buffer.alloc(Math.max(1, Math.min(free, 4 << 20)))); } catch { files.push(f); break; }
    files.push(f);
  }
  return files;
}

describe('fault: the vector store directory is full', () => {
  let server: OpenAiTestServer;
  let t: TestApp;
  let dataDir = '';
  let vectors = '';
  let mounted = false;
  const collection = uniqueName('fault_disk');

  beforeAll(async () => {
    if (notPractical) return;
    dataDir = mkdtempSync(join(tmpdir(), 'forensics-fault-disk-'));
    vectors = join(dataDir, 'vectors');
    mkdirSync(vectors);
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', vectors], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`mount failed: ${r.stderr}`);
    mounted = true;
    server = await startOpenAiTestServer();
    scriptJudge(server, 20);
    t = await createTestApp({ api: true, worker: true, env: { ...judgeEnv(server), DATA_DIR: dataDir, QUEUE_ATTEMPTS: '2', QUEUE_BACKOFF_MS: '200', SWEEP_EVERY_MS: '1000' } });
    await t.get(IngestCorpusUseCase).execute({ collection, records: CORPUS });
  }, 120_000);

  afterAll(async () => {
    if (mounted) spawnSync('umount', ['-l', vectors]);
    await t?.close();
    await server?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  maybe('keeps every report pending while the disk is full and completes them once space is freed', async () => {
    const timings: Timed[] = [];
    const fillers = fill(vectors);
    expect(statfsSync(vectors).bavail).toBe(0);
    const filledAt = Date.now();

    // Ingestion while full: an error within its bound, and no vector without a document.
    const refused = ['The Eiffel Tower has 1,665 steps to the top platform.', 'The tower is repainted every seven years.'];
    const ing = await timedRequest(`${t.url}/v1/collections/${collection}/documents`, { body: { documents: refused.map((text) => ({ text })) } });
    timings.push(ing);
    expect(ing.status).toBeGreaterThanOrEqual(500);

    // Reports while full: accepted, traced up to the store write, left pending.
    const reports = await Promise.all(Array.from({ length: 4 }, (_, i) => timedRequest(`${t.url}/v1/feedback`, { body: report(collection, i) })));
    timings.push(...reports);
    expect(reports.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    const ids = reports.map((r) => String(r.body!.id));
    await new Promise((r) => setTimeout(r, FULL_FOR_MS));
    const whileFull = await t.prisma.feedbackEvent.findMany({ where: { id: { in: ids } }, select: { status: true, failureReason: true } });
    expect(whileFull.filter((e) => e.status === 'FAILED')).toEqual([]);
    const unsynced = await t.prisma.quarantineRecord.count({ where: { collection, storeSynced: false } });
    // The full disk did stop the pipeline: nothing could finish (the quarantine flags cannot be written).
    const finishedWhileFull = whileFull.filter((e) => e.status === 'TRACED' || e.status === 'BOUNDED').length;

    for (const f of fillers) rmSync(f, { force: true });
    const freedAt = Date.now();
    const waited = await waitTerminal(t, ids, 120_000);
    const recoverSeconds = (Date.now() - freedAt) / 1000;
    expect(waited.done).toBe(true);
    const inv = await assertInvariants(t, collection, ids);
    // The refused texts: re-ingesting them now gives them their vectors.
    const again = await t.get(IngestCorpusUseCase).execute({ collection, records: refused.map((text) => ({ text })) });
    // Registered in Postgres before the refused store write (then repaired now), or not registered at all (inserted now).
    expect(again.inserted + again.repaired).toBe(refused.length);
    const stored = await t.store.fetch(collection, again.ids);
    expect(stored).toHaveLength(refused.length);
    await assertInvariants(t, collection, ids);

    const maxRequestMs = Math.round(Math.max(...timings.map((r) => r.ms)));
    printFaultLine({
      fault: `vector-store-disk-full-${Math.round((freedAt - filledAt) / 1000)}s`, accepted: inv.accepted, completed: inv.completed, failed: inv.failedPermanent, lost: inv.lost,
      ingestWhileFull: ing.status, finishedWhileFull, quarantinesWaitingForStore: unsynced, repairedOnReingest: again.repaired, recoverSeconds: Math.round(recoverSeconds * 10) / 10, maxRequestMs,
    });
    expect(finishedWhileFull).toBe(0);
    expect(unsynced).toBeGreaterThan(0);
    expect(inv.lost).toBe(0);
    expect(inv.failedPermanent).toBe(0);
    expect(maxRequestMs).toBeLessThan(REQUEST_BOUND_MS);
  }, 240_000);
});
