/**
 * Signed webhooks (issue 14) end to end: the real service (API + worker on real Postgres and
 * Redis) delivering to a real HTTP receiver on 127.0.0.1 (allowed here by WEBHOOK_ALLOW_PRIVATE),
 * the receiver checking signatures with the README's snippet; retries with growing delays and the
 * endpoint disabled after N failed deliveries; the outbound URL rules without the allowance; the
 * outbox sweep delivering rows that were never enqueued; admins only.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  documentIdFor, IngestCorpusUseCase, MarkFeedbackFailedUseCase, QuarantineTextUseCase, textHash, WEBHOOK_TRANSPORT, WEBHOOKS,
  type QuarantineEvidence, type WebhookRepository, type WebhookTransport,
} from '@forensics/core';
import { createTestApp, type TestApp } from './support/test-app';
import { eventually, TEST_API_KEY, uniqueName } from './support/test-runtime';

// ── The README's verification snippet (section "Webhooks"), verbatim logic ─────────────────────
function verifyWebhook(secret: string, rawBody: string, signatureHeader: string, toleranceSec = 300, nowMs = Date.now()): boolean {
  const parts = Object.fromEntries(String(signatureHeader).split(',').map((p) => p.split('=', 2)));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowMs / 1000 - t) > toleranceSec) return false; // replayed or stale
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface Received { at: number; headers: IncomingHttpHeaders; body: string }

/** A real HTTP receiver: records every request, answers with `status()`. */
async function startReceiver(status: () => number): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ at: performance.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status(), { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((r) => server.close(() => r())) };
}

const EVIDENCE: QuarantineEvidence = {
  policy: { name: 'judge-only', decision: 'QUARANTINE', withhold: true, reason: 'judge: yes', inputs: { label: 'YES' } },
  judge: { kind: 'scripted', model: 'm', promptVersion: 'v1', label: 'YES', reply: '[Label: Yes]', signals: null },
  retrieval: { rank: 1, score: 0.9 },
  retrieverEvidence: { error: 'no probe in this test' },
};

const BACKOFF_MS = 300;
const ATTEMPTS = 4;
const DISABLE_AFTER = 2;

describe('webhooks (real receiver, API + worker)', () => {
  let t: TestApp;
  const receivers: Array<{ url: string; close(): Promise<void> }> = [];

  beforeAll(async () => {
    t = await createTestApp({
      api: true, worker: true,
      env: {
        WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_BACKOFF_MS: String(BACKOFF_MS), WEBHOOK_ATTEMPTS: String(ATTEMPTS), WEBHOOK_DISABLE_AFTER: String(DISABLE_AFTER),
        WEBHOOK_TIMEOUT_MS: '3000', SWEEP_EVERY_MS: '1000',
      },
    });
  });
  afterAll(async () => {
    // Endpoints of a failed test would keep PENDING deliveries in the shared test database (later apps' sweeps would retry them).
    await t?.prisma.webhookEndpoint.deleteMany({ where: { url: { in: receivers.map((r) => r.url) } } });
    await t?.close();
    for (const r of receivers) await r.close();
  });

  const call = async (method: string, path: string, body?: unknown, key = TEST_API_KEY) => {
    const res = await fetch(`${t.url}${path}`, { method, headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body !== undefined ? JSON.stringify(body) : undefined });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, raw: text };
  };

  /** Ingests one text and quarantines it through the real use case (as the traceback does). */
  const quarantineOne = async (collection: string, text: string) => {
    await t.get(IngestCorpusUseCase).execute({ collection, records: [{ id: 'x', text }] });
    const documentId = documentIdFor(collection, textHash(text));
    const { record } = await t.get(QuarantineTextUseCase).execute({ documentId, feedbackId: null, collection, reason: 'judge: yes', evidence: EVIDENCE, policy: 'judge-only', actor: 'test' });
    return record;
  };

  it('a quarantine is delivered signed; the README check accepts it, and refuses a replay and a tampered body', async () => {
    const rx = await startReceiver(() => 200);
    receivers.push(rx);
    const created = await call('POST', '/v1/webhooks', { url: rx.url, events: ['quarantine.created', 'review.needed'], description: 'test receiver' });
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    // The secret is shown once: never in GET, never in the list, not stored in clear.
    const shown = await call('GET', `/v1/webhooks/${created.body.id}`);
    expect(shown.status).toBe(200);
    expect(shown.raw).not.toContain(secret);
    expect(shown.body).not.toHaveProperty('secret');
    expect((await call('GET', '/v1/webhooks')).raw).not.toContain(secret);
    const stored = await t.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(stored.secretCipher).not.toContain(secret.slice(6));
    // The audit log keeps scheme and host of the URL only (receiver URLs often carry a secret in the path).
    const audit = await t.prisma.auditLog.findFirstOrThrow({ where: { entityId: created.body.id, action: 'webhook.created' } });
    expect(audit.details).toEqual({ url: `http://${new URL(rx.url).host}/…`, events: ['quarantine.created', 'review.needed'] });

    const collection = uniqueName('wh');
    const text = 'The Eiffel Tower was designed by Antoni Gaudi and completed in 1889.';
    const record = await quarantineOne(collection, text);

    const got = await eventually(async () => rx.received[0], 20_000);
    const sig = String(got.headers['webhook-signature']);
    expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(secret, got.body, sig)).toBe(true);
    const payload = JSON.parse(got.body);
    expect(payload).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), type: 'quarantine.created', createdAt: expect.any(String),
      data: { quarantineId: record.id, documentId: record.documentId, feedbackId: null, collection, state: 'QUARANTINED', policy: 'judge-only', servedDuringReview: false },
    });
    expect(got.body).not.toContain('Eiffel'); // ids and facts, never the text
    expect(got.headers['content-type']).toBe('application/json');
    const delivery = await t.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: created.body.id } });
    expect(got.headers['webhook-id']).toBe(delivery.id);
    expect(delivery.eventId).toBe(payload.id);

    // Replay: the same body and signature, received 6 minutes later, is refused.
    expect(verifyWebhook(secret, got.body, sig, 300, Date.now() + 6 * 60_000)).toBe(false);
    // A signature re-stamped with a fresh t but the old v1 is refused (t is signed).
    const fresh = `t=${Math.floor(Date.now() / 1000)},v1=${sig.split('v1=')[1]}`;
    expect(fresh === sig || verifyWebhook(secret, got.body, fresh) === false).toBe(true);
    // Tampered body, wrong secret: refused.
    expect(verifyWebhook(secret, got.body.replace('QUARANTINED', 'RESTORED'), sig)).toBe(false);
    expect(verifyWebhook(`${secret}x`, got.body, sig)).toBe(false);

    // The delivery log shows the attempt.
    const log = await eventually(async () => {
      const r = await call('GET', `/v1/webhooks/${created.body.id}/deliveries`);
      return r.body.items[0]?.status === 'DELIVERED' ? r.body : null;
    }, 10_000);
    expect(log.items).toHaveLength(1);
    expect(log.items[0].attemptLog).toEqual([expect.objectContaining({ attempt: 1, outcome: 'delivered', statusCode: 200, error: null, durationMs: expect.any(Number) })]);
    expect(rx.received).toHaveLength(1);

    // Rotating the secret: the old one no longer verifies the next delivery, the new one does.
    const rotated = await call('POST', `/v1/webhooks/${created.body.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    await quarantineOne(collection, 'A second poisoned text about the moon being made of cheese.');
    const second = await eventually(async () => rx.received[1], 20_000);
    expect(verifyWebhook(rotated.body.secret, second.body, String(second.headers['webhook-signature']))).toBe(true);
    expect(verifyWebhook(secret, second.body, String(second.headers['webhook-signature']))).toBe(false);

    // A test ping: sent now, signed, reported back.
    const ping = await call('POST', `/v1/webhooks/${created.body.id}/test`);
    expect(ping.body).toEqual({ ok: true, statusCode: 200, error: null, durationMs: expect.any(Number) });
    const pinged = rx.received[2];
    expect(JSON.parse(pinged.body)).toEqual(expect.objectContaining({ type: 'ping', data: { endpointId: created.body.id } }));
    expect(verifyWebhook(rotated.body.secret, pinged.body, String(pinged.headers['webhook-signature']))).toBe(true);
    await call('DELETE', `/v1/webhooks/${created.body.id}`);
  });

  it('a receiver answering 500 gets retries with growing delays; after N failed deliveries the endpoint is disabled with a reason', async () => {
    let answer = 500;
    const rx = await startReceiver(() => answer);
    receivers.push(rx);
    const created = await call('POST', '/v1/webhooks', { url: rx.url, events: ['feedback.failed'] });
    expect(created.status).toBe(201);
    const id: string = created.body.id;

    // DISABLE_AFTER failed deliveries, one after the other (each spends every attempt).
    for (let n = 1; n <= DISABLE_AFTER; n++) {
      const { event } = await t.repos.feedback.create({ collection: uniqueName('wh'), query: 'q?', wrongAnswer: 'w', k: 3 });
      await t.get(MarkFeedbackFailedUseCase).execute({ feedbackId: event.id, reason: `boom ${n}\n    at /srv/secret/path.ts:1`, attempts: 5 });
      await eventually(async () => (await t.prisma.webhookDelivery.count({ where: { endpointId: id, status: 'FAILED' } })) >= n || null, 30_000);
    }
    expect(rx.received).toHaveLength(ATTEMPTS * DISABLE_AFTER);
    // The reason reaches receivers sanitised (first line, no paths).
    expect(JSON.parse(rx.received[0].body).data).toEqual(expect.objectContaining({ reason: 'boom 1', attempts: 5 }));

    // Growing delays: the n-th retry waits between base*2^(n-1)/2 and base*2^(n-1) (equal jitter),
    // so each gap is at least the largest possible previous one.
    const firstDelivery = rx.received.slice(0, ATTEMPTS).map((r) => r.at);
    const gaps = firstDelivery.slice(1).map((at, i) => at - firstDelivery[i]);
    gaps.forEach((g, i) => expect(g).toBeGreaterThanOrEqual((BACKOFF_MS * 2 ** i) / 2 - 25));
    expect(gaps[2]).toBeGreaterThan(gaps[0]);
    expect(gaps[2]).toBeGreaterThanOrEqual(BACKOFF_MS * 2 - 25);

    const endpoint = (await call('GET', `/v1/webhooks/${id}`)).body;
    expect(endpoint).toEqual(expect.objectContaining({ active: false, consecutiveFailures: DISABLE_AFTER }));
    expect(endpoint.disabledReason).toBe(`disabled after ${DISABLE_AFTER} consecutive failed deliveries; last error: HTTP 500`);

    // The delivery log: every attempt, the last one of the last delivery disabled the endpoint.
    const log = (await call('GET', `/v1/webhooks/${id}/deliveries?limit=10`)).body;
    expect(log.items).toHaveLength(DISABLE_AFTER);
    const outcomes = log.items.map((d: { attemptLog: Array<{ outcome: string; statusCode: number }> }) => d.attemptLog.map((a) => `${a.outcome}:${a.statusCode}`));
    expect(outcomes).toEqual([
      ['retried:500', 'retried:500', 'retried:500', 'disabled:500'], // newest first
      ['retried:500', 'retried:500', 'retried:500', 'failed:500'],
    ]);
    expect(log.items.every((d: { status: string; attempts: number }) => d.status === 'FAILED' && d.attempts === ATTEMPTS)).toBe(true);
    // Paginated: limit 1 gives a cursor to the older delivery.
    const p1 = (await call('GET', `/v1/webhooks/${id}/deliveries?limit=1`)).body;
    const p2 = (await call('GET', `/v1/webhooks/${id}/deliveries?limit=1&cursor=${p1.nextCursor}`)).body;
    expect([p1.items[0].id, p2.items[0].id]).toEqual(log.items.map((d: { id: string }) => d.id));
    expect(p2.nextCursor).toBeNull();

    // Disabled: nothing more is published to it.
    const { event } = await t.repos.feedback.create({ collection: uniqueName('wh'), query: 'q?', wrongAnswer: 'w', k: 3 });
    await t.get(MarkFeedbackFailedUseCase).execute({ feedbackId: event.id, reason: 'again', attempts: 1 });
    expect(await t.prisma.webhookDelivery.count({ where: { endpointId: id } })).toBe(DISABLE_AFTER);

    // Re-driving needs an active endpoint.
    expect((await call('POST', `/v1/webhooks/${id}/deliveries/${log.items[0].id}/redeliver`)).status).toBe(409);
    // Re-enabling resets the failure count.
    const on = await call('PATCH', `/v1/webhooks/${id}`, { active: true });
    expect(on.body).toEqual(expect.objectContaining({ active: true, consecutiveFailures: 0, disabledReason: null }));
    // A failed test ping is reported, not counted.
    expect((await call('POST', `/v1/webhooks/${id}/test`)).body).toEqual(expect.objectContaining({ ok: false, statusCode: 500, error: 'HTTP 500' }));
    expect((await call('GET', `/v1/webhooks/${id}`)).body.consecutiveFailures).toBe(0);

    // The receiver is fixed: re-drive the last failed delivery; it gets a fresh set of attempts and is delivered, its history kept.
    answer = 200;
    const again = await call('POST', `/v1/webhooks/${id}/deliveries/${log.items[0].id}/redeliver`);
    expect([again.status, again.body.status]).toEqual([202, 'PENDING']);
    const redelivered = await eventually(async () => {
      const d = (await call('GET', `/v1/webhooks/${id}/deliveries?limit=1`)).body.items[0];
      return d.status === 'DELIVERED' ? d : null;
    }, 20_000);
    expect(redelivered.attemptLog.map((a: { attempt: number; outcome: string }) => `${a.attempt}:${a.outcome}`)).toEqual(['1:retried', '2:retried', '3:retried', '4:disabled', '5:delivered']);
    expect(verifyWebhook(created.body.secret, rx.received.at(-1)!.body, String(rx.received.at(-1)!.headers['webhook-signature']))).toBe(true);
    expect((await call('POST', `/v1/webhooks/${id}/deliveries/${log.items[0].id}/redeliver`)).status).toBe(409);

    // The metric counts every attempt by outcome (read from the delivery log).
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    const value = (outcome: string) => Number(new RegExp(`^forensics_webhook_deliveries_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(metrics)?.[1]);
    expect(value('retried')).toBeGreaterThanOrEqual((ATTEMPTS - 1) * DISABLE_AFTER);
    expect(value('disabled')).toBeGreaterThanOrEqual(1);
    expect(value('failed')).toBeGreaterThanOrEqual(1);
    await call('DELETE', `/v1/webhooks/${id}`);
  });

  it('a delivery written while the queue was unreachable is enqueued by the sweep and delivered', async () => {
    const rx = await startReceiver(() => 204);
    receivers.push(rx);
    const created = await call('POST', '/v1/webhooks', { url: rx.url, events: ['enhancement.created'] });
    // The outbox row only (as when Redis was down at publish time): no job exists for it.
    const webhooks = t.get<WebhookRepository>(WEBHOOKS);
    const [d] = await webhooks.createDeliveries([{ id: randomUUID(), endpointId: created.body.id, payload: { id: randomUUID(), type: 'enhancement.created', createdAt: new Date().toISOString(), data: { enhancementId: 'e' } } }]);
    // The sweep runs every second, but it shares the webhooks queue with other apps' retries of the shared
    // test database's PENDING rows: on a loaded 2-core machine 30 s was seen to be too short (CI, 2026-11-27).
    const got = await eventually(async () => rx.received[0], 60_000);
    expect(got.headers['webhook-id']).toBe(d.id);
    expect(verifyWebhook(created.body.secret, got.body, String(got.headers['webhook-signature']))).toBe(true);
    await eventually(async () => (await webhooks.getDelivery(d.id))?.status === 'DELIVERED', 10_000);
    await call('DELETE', `/v1/webhooks/${created.body.id}`);
  });

  it('the transport bounds an attempt by its timeout and does not follow redirects', async () => {
    const transport = t.get<WebhookTransport>(WEBHOOK_TRANSPORT);
    const hang = createServer(() => { /* never answers */ });
    const redirect = await startReceiver(() => 302);
    receivers.push(redirect);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/slow`;
      const slow = await transport.send({ url, body: '{}', headers: {}, timeoutMs: 300 });
      expect([slow.statusCode, slow.error]).toEqual([null, 'timed out after 300 ms']);
      expect(slow.durationMs).toBeGreaterThanOrEqual(290);
      expect(slow.durationMs).toBeLessThan(2000);
      const moved = await transport.send({ url: redirect.url, body: '{}', headers: {}, timeoutMs: 2000 });
      expect([moved.statusCode, redirect.received.length]).toEqual([302, 1]);
    } finally {
      hang.closeAllConnections();
      await new Promise((r) => hang.close(r));
    }
  });

  it('validates requests: 400 naming the field; unknown ids 404', async () => {
    const bad = await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:1/x', events: ['nope'] });
    expect(bad.status).toBe(400);
    expect(bad.raw).toContain('events');
    const noEvents = await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:1/x', events: [] });
    expect(noEvents.status).toBe(400);
    expect(noEvents.body.message).toContain('events');
    const notUrl = await call('POST', '/v1/webhooks', { url: 'not a url', events: ['quarantine.created'] });
    expect(notUrl.status).toBe(400);
    expect(notUrl.body.message).toMatch(/^url /);
    expect((await call('GET', `/v1/webhooks/${randomUUID()}`)).status).toBe(404);
    expect((await call('PATCH', `/v1/webhooks/${randomUUID()}`, {})).status).toBe(400);
  });

  it('only admins manage webhooks: a reviewer key and a viewer key get 403', async () => {
    for (const role of ['reviewer', 'viewer']) {
      const k = await call('POST', '/v1/admin/keys', { name: uniqueName(role), role });
      expect([200, 201]).toContain(k.status);
      for (const [method, path, body] of [['GET', '/v1/webhooks'], ['POST', '/v1/webhooks', { url: 'http://127.0.0.1:1/x', events: ['quarantine.created'] }]] as const) {
        const r = await call(method, path, body, k.body.key);
        expect([role, method, r.status]).toEqual([role, method, 403]);
      }
    }
  });
});

describe('webhook URL rules without WEBHOOK_ALLOW_PRIVATE', () => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp({ api: true }); });
  afterAll(async () => { await t?.close(); });

  it.each([
    ['http://example.com/hook', /url must use https/],
    ['https://127.0.0.1/hook', /url resolves to a loopback, private/],
    ['https://localhost/hook', /url resolves to a loopback, private/],
    ['https://10.1.2.3/hook', /url resolves to a loopback, private/],
    ['https://192.168.0.10/hook', /url resolves to a loopback, private/],
    ['https://172.16.5.4/hook', /url resolves to a loopback, private/],
    ['https://169.254.169.254/latest/meta-data', /url resolves to a loopback, private/],
    ['https://100.64.0.1/hook', /url resolves to a loopback, private/],
    ['https://[::1]/hook', /url resolves to a loopback, private/],
    ['https://[fd00::1]/hook', /url resolves to a loopback, private/],
    ['https://[::ffff:127.0.0.1]/hook', /url resolves to a loopback, private/],
    // IPv6 forms that carry an IPv4 address (issue 56, item 4): IPv4-compatible, 6to4, NAT64 local-use.
    ['https://[::127.0.0.1]/hook', /url resolves to a loopback, private/],
    ['https://[::7f00:1]/hook', /url resolves to a loopback, private/],
    ['https://[2002:7f00:1::1]/hook', /url resolves to a loopback, private/],
    ['https://[64:ff9b:1::7f00:1]/hook', /url resolves to a loopback, private/],
    ['https://user:pw@93.184.215.14/hook', /url must not contain credentials/],
  ])('refuses %s with a 400 naming url', async (url, message) => {
    const res = await fetch(`${t.url}/v1/webhooks`, { method: 'POST', headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ url, events: ['quarantine.created'] }) });
    const body = await res.json();
    expect([res.status, body.message]).toEqual([400, expect.stringMatching(message)]);
    expect(await t.prisma.webhookEndpoint.count({ where: { url } })).toBe(0);
  });

  it('checks the address again at delivery time: a host that now resolves to loopback is not connected to (DNS rebinding)', async () => {
    const rx = await startReceiver(() => 200);
    try {
      const transport = t.get<WebhookTransport>(WEBHOOK_TRANSPORT);
      for (const url of [rx.url, rx.url.replace('127.0.0.1', 'localhost')]) {
        const res = await transport.send({ url, body: '{}', headers: { 'content-type': 'application/json' }, timeoutMs: 2000 });
        expect([url, res.statusCode, res.error]).toEqual([url, null, expect.stringMatching(/refused/)]);
      }
      expect(rx.received).toHaveLength(0);
    } finally {
      await rx.close();
    }
  });

  it('accepts a public https address (no request is made at registration)', async () => {
    const res = await fetch(`${t.url}/v1/webhooks`, { method: 'POST', headers: { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://93.184.215.14/hook', events: ['quarantine.created'] }) });
    expect(res.status).toBe(201);
    const { id } = await res.json();
    await fetch(`${t.url}/v1/webhooks/${id}`, { method: 'DELETE', headers: { 'x-api-key': TEST_API_KEY } });
  });
});
