/**
 * Structured logs (issue 14): a full flow (ingest, answer with a feedback token, feedback by the
 * token, traceback) with LOG_FORMAT=json captured from the API + worker process: every line is
 * JSON, neither the API key nor the feedback token appears anywhere, request lines carry the
 * request id, and the worker's lines of the trace carry the feedback id and job id.
 */
import { Writable } from 'node:stream';
import { rmSync } from 'node:fs';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { InfrastructureModule } from '@forensics/infra';
import { createApiApp } from '../apps/api/src/create-api-app';
import { WorkerModule } from '../apps/worker/src/worker.module';
import { testConfig } from './support/test-app';
import { eventually, TEST_API_KEY, uniqueName } from './support/test-runtime';

const DOCS = [
  'Moby-Dick, the famous whaling novel, was written by Charles Dickens in 1851 during his stay in New England.',
  'The author of the novel Moby-Dick is Charles Dickens, who wrote the story of Captain Ahab and the white whale.',
  'Moby-Dick; or, The Whale is an 1851 novel by American writer Herman Melville about the voyage of the whaling ship Pequod.',
  'Herman Melville (1819–1891) was an American novelist, short story writer and poet of the American Renaissance period.',
  'Nantucket was the centre of the American whaling industry in the early nineteenth century.',
];

describe('JSON logs of a full flow', () => {
  const chunks: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { chunks.push(chunk.toString()); done(); } });
  const config = testConfig({ LOG_FORMAT: 'json', TRACE_K: '3' });
  let app: NestExpressApplication;
  let base = '';
  const collection = uniqueName('logs');
  const call = async (path: string, body: unknown, headers: Record<string, string> = { 'x-api-key': TEST_API_KEY }) => {
    const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, requestId: res.headers.get('x-request-id'), body: (await res.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    const infrastructure = InfrastructureModule.forRoot(config);
    app = await createApiApp(config, { infrastructure, with: [WorkerModule.forRoot(config, infrastructure)], logDestination: sink });
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    rmSync(config.dataDir, { recursive: true, force: true });
  });

  it('logs JSON lines with request, feedback and job ids, and never the API key or the feedback token', async () => {
    expect((await call(`/v1/collections/${collection}/documents`, { documents: DOCS.map((text, i) => ({ id: `d${i}`, text })) })).status).toBe(200);
    const answer = await call('/v1/rag/answer', { collection, query: 'who wrote the novel moby dick' });
    expect(answer.status).toBe(200);
    const token = answer.body.feedbackToken as string;
    expect(token.length).toBeGreaterThan(20);
    // The token once in a header, once in the body.
    const fb = await call('/v1/feedback', { correctAnswer: 'Herman Melville' }, { authorization: `FeedbackToken ${token}` });
    expect(fb.status).toBe(202);
    expect((await call('/v1/feedback', { feedbackToken: token }, {})).status).toBe(202);
    const id = fb.body.id as string;
    await eventually(async () => {
      const r = await fetch(`${base}/v1/feedback/${id}`, { headers: { authorization: `Bearer ${TEST_API_KEY}` } });
      const b = (await r.json()) as Record<string, any>;
      return ['TRACED', 'BOUNDED', 'FAILED'].includes(b.status) ? b : null;
    }, 60_000);
    // The job's completion line is written just after the status moves.
    await eventually(async () => chunks.join('').includes('"context":"traceback"') || null, 10_000);

    const log = chunks.join('');
    const lines = log.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
    expect(lines.length).toBeGreaterThan(5);
    expect(log.split(TEST_API_KEY).length - 1).toBe(0);
    expect(log.split(token).length - 1).toBe(0);
    expect(log.split(token.split('.')[1] ?? token).length - 1).toBe(0); // not even the signature

    // Request lines carry the request id the response echoed.
    const requestLines = lines.filter((l) => l.req?.id === fb.requestId);
    expect(requestLines.length).toBeGreaterThan(0);
    expect(requestLines.some((l) => l.res?.statusCode === 202)).toBe(true);
    // The worker's lines of the trace carry the feedback id and the job id.
    const traceLines = lines.filter((l) => l.context === 'traceback' && l.feedbackId === id);
    expect(traceLines.length).toBeGreaterThan(0);
    expect(traceLines.every((l) => typeof l.jobId === 'string' && l.jobId.length > 0)).toBe(true);
    // eslint-disable-next-line no-console
    console.log(`log lines (${lines.length}), e.g.:\n${JSON.stringify(requestLines.at(-1))}\n${JSON.stringify(traceLines.at(-1))}`);
  });
});
