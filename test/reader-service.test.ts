/**
 * @jest-environment ./test/support/onnx-environment.js
 *
 * The reader judge through the whole service (issue 59): HTTP API + worker (BullMQ on Redis) + Postgres + the
 * embedded vector store, `JUDGE=reader` (the rules + all-MiniLM-L6-v2 from `npm run models`, the committed fit).
 * A planted group is quarantined with verdicts the reader gave (kind `reader`, its model, its features in the
 * signals), the texts that do not state the answer stay served, and /health/details names the judge. (A genuine text
 * naming the wrong answer in another role — "Anna Korrel, a pupil in the workshop, …" — is still judged YES by this
 * reader, as by the rules: decision 0410.) Also: JUDGE=reader without the encoder installed is refused with the command that installs it, and the
 * default judge stays the rules (decision 0410: the reader measured no better than them).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { READER_JUDGE_MODEL } from '@forensics/algorithms';
import { loadConfig, MINILM_DIR, modelsDirOf } from '@forensics/infra/config/app-config';
import { createTestApp, type TestApp } from './support/test-app';
import { eventually, TEST_API_KEY, uniqueName } from './support/test-runtime';
import { OTHER, PLANTED, QUERY } from './support/saint-ilsa-fixture';

type Json = Record<string, any>;
const dir = join(modelsDirOf(process.env.MODELS_DIR), MINILM_DIR);
const present = existsSync(join(dir, 'model.onnx'));
if (!present && process.env.CI) throw new Error(`${dir}/model.onnx is missing: .ci/run must run \`npm run models\` first`);
if (!present) console.warn(`[reader-service.test] ${dir} has no model: run \`npm run models\`; skipped`);
const maybe = present ? describe : describe.skip;

maybe('the reader judge in the service', () => {
  let t: TestApp;
  const col = uniqueName('reader');
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, body: (await r.json().catch(() => ({}))) as Json };
  };

  beforeAll(async () => {
    t = await createTestApp({ api: true, worker: true, env: { JUDGE: 'reader', TRACE_K: '5', SWEEP_EVERY_MS: '1000' } });
    const docs = [...PLANTED, ...OTHER];
    const r = await call('POST', `/v1/collections/${col}/documents`, { documents: docs.map((text, i) => ({ id: `d${i}`, text })) });
    expect(r.status).toBe(200);
  }, 180_000);
  afterAll(async () => { await t?.close(); });

  it('quarantines the planted group on the reader\'s verdicts and leaves the other texts served', async () => {
    const health = await call('GET', '/health/details');
    expect(health.body.judge).toMatchObject({ kind: 'reader', model: READER_JUDGE_MODEL });
    const r = await call('POST', '/v1/feedback', { collection: col, query: QUERY, wrongAnswer: 'Anna Korrel', reporter: 'user-1' });
    expect(r.status).toBe(202);
    await eventually(async () => {
      const f = await call('GET', `/v1/feedback/${r.body.id}`);
      return f.body.trace?.outcome ? f.body : null;
    }, 180_000);
    const verdicts = await t.prisma.judgeVerdict.findMany({ where: { feedbackId: r.body.id } });
    expect(verdicts.length).toBeGreaterThanOrEqual(PLANTED.length);
    for (const v of verdicts) { expect(v.judgeKind).toBe('reader'); expect(v.judgeModel).toBe(READER_JUDGE_MODEL); }
    const docs = await t.prisma.document.findMany({ where: { collection: col } });
    const byExt = new Map(docs.map((d) => [d.externalId, d.id]));
    const yes = verdicts.filter((v) => v.label === 'YES');
    expect(yes.map((v) => v.documentId).sort()).toEqual(['d0', 'd1', 'd2'].map((e) => byExt.get(e)!).sort());
    expect((yes[0].signals as Json).claimQuery).toBeGreaterThan(0);
    const quarantined = (await t.prisma.quarantineRecord.findMany({ where: { feedbackId: r.body.id, state: 'QUARANTINED' } })).map((q) => q.documentId);
    expect(quarantined.sort()).toEqual(['d0', 'd1', 'd2'].map((e) => byExt.get(e)!).sort());
    const served = await t.store.fetch(col, ['d3', 'd4', 'd5'].map((e) => byExt.get(e)!));
    expect(served.map((p) => p.quarantined)).toEqual([false, false, false]);
  }, 240_000);

  it('is chosen with JUDGE=reader and refused without the encoder; the default stays the rules', () => {
    const base = { DATABASE_URL: 'postgresql://u@127.0.0.1:1/x', REDIS_URL: 'redis://127.0.0.1:1' };
    expect(loadConfig({ ...base, JUDGE: 'reader' }).judge).toMatchObject({ kind: 'reader', readerModelDir: dir });
    expect(loadConfig(base).judge.kind).toBe('offline');
    expect(() => loadConfig({ ...base, JUDGE: 'reader', MODELS_DIR: mkdtempSync(join(tmpdir(), 'no-models-')) })).toThrow(/JUDGE='reader' needs/);
    expect(loadConfig({ ...base, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }).judge.kind).toBe('openai');
  });
});
