import type { WebhookRequest, WebhookResponse, WebhookTransport } from '../../../ports/repositories/webhook.port';
import { InMemoryWebhookRepository } from '../../../testing/in-memory-webhook.repository';
import { DeliverWebhookUseCase } from '../deliver-webhook.use-case';
import { PublishWebhookEventUseCase } from '../publish-webhook-event.use-case';
import { RedriveWebhookDeliveriesUseCase } from '../redrive-webhook-deliveries.use-case';
import { verifyWebhookSignature } from '../webhook-signature';

/** A transport that answers from a script and keeps the requests. */
class ScriptedTransport implements WebhookTransport {
  readonly sent: WebhookRequest[] = [];
  constructor(private readonly answer: () => WebhookResponse) {}
  async send(req: WebhookRequest): Promise<WebhookResponse> { this.sent.push(req); return this.answer(); }
}

function setup(answer: () => WebhookResponse, disableAfter = 2) {
  let now = new Date('2026-11-23T10:00:00Z');
  const clock = { now: () => now };
  const webhooks = new InMemoryWebhookRepository(undefined, () => now);
  const transport = new ScriptedTransport(answer);
  const enqueued: string[] = [];
  const dispatcher = { enqueue: async (ids: readonly string[]) => { enqueued.push(...ids); }, redrive: async () => 'added' as const };
  return {
    webhooks, transport, enqueued, advance: (ms: number) => { now = new Date(now.getTime() + ms); },
    deliver: new DeliverWebhookUseCase({ webhooks, transport, settings: { timeoutMs: 1000, attempts: 3, disableAfter }, clock }),
    publish: new PublishWebhookEventUseCase({ webhooks, dispatcher, clock }),
    redrive: new RedriveWebhookDeliveriesUseCase({ webhooks, dispatcher, clock }),
  };
}

describe('webhook outbox and delivery (fakes)', () => {
  it('publishes one delivery per subscribed active endpoint and signs the stored body at send time', async () => {
    const s = setup(() => ({ statusCode: 200, error: null, durationMs: 3 }));
    const a = await s.webhooks.createEndpoint({ url: 'https://a.example/h', events: ['quarantine.created'], secret: 'sa', createdBy: 'admin' });
    await s.webhooks.createEndpoint({ url: 'https://b.example/h', events: ['feedback.failed'], secret: 'sb', createdBy: 'admin' });
    const out = await s.publish.execute({ type: 'quarantine.created', data: { quarantineId: 'q1' } });
    expect(out.deliveries.map((d) => d.endpointId)).toEqual([a.id]);
    expect(s.enqueued).toEqual([out.deliveries[0].id]);
    const res = await s.deliver.execute({ deliveryId: out.deliveries[0].id, lastAttempt: false, retryDelayMs: 100 });
    expect(res).toEqual(expect.objectContaining({ outcome: 'delivered', attempt: 1, statusCode: 200 }));
    const [req] = s.transport.sent;
    expect(req.url).toBe('https://a.example/h');
    expect(req.headers['Webhook-Id']).toBe(out.deliveries[0].id);
    expect(JSON.parse(req.body)).toEqual({ id: out.deliveries[0].eventId, type: 'quarantine.created', createdAt: '2026-11-23T10:00:00.000Z', data: { quarantineId: 'q1' } });
    expect(verifyWebhookSignature('sa', req.headers['Webhook-Signature'], req.body, Date.parse('2026-11-23T10:00:00Z') / 1000)).toBe(true);
    // Delivered: a second run of the job does nothing.
    expect((await s.deliver.execute({ deliveryId: out.deliveries[0].id, lastAttempt: true, retryDelayMs: 0 })).outcome).toBe('skipped');
    expect(s.transport.sent).toHaveLength(1);
  });

  it('retried → failed → the endpoint disabled after N failed deliveries; later deliveries to it end DEAD without a request', async () => {
    const s = setup(() => ({ statusCode: null, error: 'connect ECONNREFUSED', durationMs: 1 }), 2);
    const e = await s.webhooks.createEndpoint({ url: 'https://a.example/h', events: ['feedback.failed'], secret: 's', createdBy: 'admin' });
    const attempt = async (id: string, last: boolean) => (await s.deliver.execute({ deliveryId: id, lastAttempt: last, retryDelayMs: 500 })).outcome;
    const d1 = (await s.publish.execute({ type: 'feedback.failed', data: {} })).deliveries[0];
    expect(await attempt(d1.id, false)).toBe('retried');
    expect((await s.webhooks.getDelivery(d1.id))!.nextAttemptAt).toEqual(new Date('2026-11-23T10:00:00.500Z'));
    expect(await attempt(d1.id, true)).toBe('failed');
    const d2 = (await s.publish.execute({ type: 'feedback.failed', data: {} })).deliveries[0];
    const d3 = (await s.publish.execute({ type: 'feedback.failed', data: {} })).deliveries[0];
    expect(await attempt(d2.id, true)).toBe('disabled');
    expect((await s.webhooks.getEndpoint(e.id))!.disabledReason).toBe('disabled after 2 consecutive failed deliveries; last error: connect ECONNREFUSED');
    const sent = s.transport.sent.length;
    expect(await attempt(d3.id, false)).toBe('dead');
    expect(s.transport.sent).toHaveLength(sent);
    expect((await s.webhooks.getDelivery(d3.id))!.status).toBe('DEAD');
    // Disabled: new events are not written for it.
    expect((await s.publish.execute({ type: 'feedback.failed', data: {} })).deliveries).toEqual([]);
  });

  it('the sweep re-drives PENDING deliveries older than the grace period only', async () => {
    const s = setup(() => ({ statusCode: 200, error: null, durationMs: 1 }));
    await s.webhooks.createEndpoint({ url: 'https://a.example/h', events: ['enhancement.created'], secret: 's', createdBy: 'admin' });
    const d = (await s.publish.execute({ type: 'enhancement.created', data: {} })).deliveries[0];
    expect((await s.redrive.execute({ graceMs: 5000 })).added).toEqual([]);
    s.advance(6000);
    expect((await s.redrive.execute({ graceMs: 5000 })).added).toEqual([d.id]);
  });

  it('the sweep pages past rows with live jobs, so a row without a job is reached within a few runs', async () => {
    const s = setup(() => ({ statusCode: 200, error: null, durationMs: 1 }));
    await s.webhooks.createEndpoint({ url: 'https://a.example/h', events: ['enhancement.created'], secret: 's', createdBy: 'admin' });
    // Three older rows whose jobs are live (retrying), then one written while the queue was unreachable.
    const older = [];
    for (let i = 0; i < 3; i++) { older.push((await s.publish.execute({ type: 'enhancement.created', data: { i } })).deliveries[0].id); s.advance(10); }
    const [orphan] = await s.webhooks.createDeliveries([{ id: '00000000-0000-4000-8000-000000000001', endpointId: (await s.webhooks.listEndpoints())[0].id, payload: { id: '00000000-0000-4000-8000-000000000002', type: 'enhancement.created', createdAt: '', data: {} } }]);
    s.advance(6000);
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await s.redrive.execute({ graceMs: 5000, limit: 2 }));
    expect(runs.map((r) => [r.added.length + r.live, r.wrapped])).toEqual([[2, false], [2, false], [0, true]]);
    expect(runs.flatMap((r) => r.added)).toEqual(expect.arrayContaining([orphan.id]));
    expect(new Set(runs.flatMap((r) => r.added))).toEqual(new Set([...older, orphan.id]));
  });

  it('a secret that cannot be decrypted (WEBHOOK_SECRETS_KEY changed) is a failed attempt in the log, not a job that throws', async () => {
    const s = setup(() => ({ statusCode: 200, error: null, durationMs: 1 }));
    await s.webhooks.createEndpoint({ url: 'https://a.example/h', events: ['enhancement.created'], secret: 's', createdBy: 'admin' });
    s.webhooks.getSecret = async () => { throw new Error('Unsupported state or unable to authenticate data'); };
    const d = (await s.publish.execute({ type: 'enhancement.created', data: {} })).deliveries[0];
    const first = await s.deliver.execute({ deliveryId: d.id, lastAttempt: false, retryDelayMs: 100 });
    expect([first.outcome, first.statusCode]).toEqual(['retried', null]);
    expect(first.error).toMatch(/signing secret cannot be decrypted with this WEBHOOK_SECRETS_KEY/);
    expect((await s.deliver.execute({ deliveryId: d.id, lastAttempt: true, retryDelayMs: 0 })).outcome).toBe('failed');
    expect(s.transport.sent).toHaveLength(0);
    expect((await s.webhooks.getDelivery(d.id))!.status).toBe('FAILED');
  });
});
