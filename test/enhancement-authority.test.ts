/**
 * Who may write what is served (issues 54 and 56), on the real service (Postgres, Redis, the HTTP API,
 * the worker, the embedded store, the offline judge and generator) at default trust settings:
 * - a feedback token's "correct answer" is only proposed: the next ask does not serve it; a reviewer
 *   approves it and then it is served;
 * - a `feedback`-scoped key may only suggest a correct answer, and only for an event it reported
 *   (403 otherwise, the event unchanged); a reviewer's correct answer is served at once;
 * - an enhancement is served for its own question (and its near-duplicates), not for another question.
 * Each of these fails on the code before the change (a token's answer and any feedback key's were live).
 */
import { createTestApp, type TestApp } from './support/test-app';
import { eventually, TEST_API_KEY, uniqueName } from './support/test-runtime';

const Q = 'who designed canberra';
const OTHER_Q = 'what is the capital of australia';
const TEXTS = [
  'Canberra was designed by the American architects Walter Burley Griffin and Marion Mahony Griffin after an international competition.',
  'The design competition for the Australian capital was won in 1912 by Walter Burley Griffin.',
  'Canberra is the capital city of Australia, founded in 1913 as a compromise between Sydney and Melbourne.',
  'Sydney is the most populous city in Australia and home to the Sydney Opera House.',
  'Melbourne is the capital of the Australian state of Victoria.',
  'The Australian Parliament House is located in Canberra.',
  'Kangaroos are marsupials native to Australia.',
];

describe('who may write what is served: enhancements under the trust of removals', () => {
  let t: TestApp;
  const collection = uniqueName('authority');
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { 'x-api-key': TEST_API_KEY }) => {
    const res = await fetch(t.url + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };
  const newKey = async (body: Record<string, unknown>) => {
    const r = await call('POST', '/v1/admin/keys', body);
    expect(r.status).toBe(201);
    return r.body.key as string;
  };
  const ask = async (query: string) => (await call('POST', '/v1/rag/answer', { collection, query, k: 3 })).body;
  const served = (a: any, needle: string) => a.contexts.some((c: any) => c.text.includes(needle));
  const settled = (id: string) => eventually(async () => {
    const r = await call('GET', `/v1/feedback/${id}`);
    return ['TRACED', 'BOUNDED', 'FAILED'].includes(r.body.status) ? r.body : null;
  }, 60_000);

  beforeAll(async () => {
    t = await createTestApp({ api: true, worker: true });
    expect((await call('POST', `/v1/collections/${collection}/documents`, { documents: TEXTS.map((text) => ({ text })) })).status).toBe(200);
  });
  afterAll(async () => { await t?.close(); });

  it("a feedback token's correct answer waits for a reviewer, then is served", async () => {
    const a = await ask(Q);
    const fb = await call('POST', '/v1/feedback', { correctAnswer: 'Frank Lloyd Wright' }, { authorization: `FeedbackToken ${a.feedbackToken}` });
    expect(fb.status).toBe(202);
    const done = await settled(fb.body.id);
    expect(done.status).toBe('TRACED');
    const [enh] = done.enhancements;
    expect(enh).toMatchObject({ state: 'PROPOSED', correctAnswer: 'Frank Lloyd Wright' });
    expect(enh.reason).toMatch(/anonymous report \(below identified\)/);
    expect(served(await ask(Q), 'Frank Lloyd Wright')).toBe(false);
    expect((await call('GET', `/v1/enhancements?state=PROPOSED&collection=${collection}`)).body.items.map((e: any) => e.id)).toContain(enh.id);

    // A service key cannot approve; a reviewer can, and the text is served from then on.
    const svc = await newKey({ name: uniqueName('svc'), scopes: ['feedback'] });
    expect((await call('POST', `/v1/enhancements/${enh.id}/approve`, undefined, { 'x-api-key': svc })).status).toBe(403);
    const reviewer = await newKey({ name: uniqueName('rev'), role: 'reviewer' });
    const ok = await call('POST', `/v1/enhancements/${enh.id}/approve`, undefined, { 'x-api-key': reviewer });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ state: 'ACTIVE', approvedBy: expect.stringContaining('user:') });
    expect(served(await ask(Q), 'Frank Lloyd Wright')).toBe(true);
    // Rejecting (DELETE) takes it out again; a deleted one cannot be approved.
    expect((await call('DELETE', `/v1/enhancements/${enh.id}`, undefined, { 'x-api-key': reviewer })).body.state).toBe('DELETED');
    expect(served(await ask(Q), 'Frank Lloyd Wright')).toBe(false);
    expect((await call('POST', `/v1/enhancements/${enh.id}/approve`, undefined, { 'x-api-key': reviewer })).status).toBe(409);
    expect((await t.repos.audit.listFor('Enhancement', enh.id)).map((x) => x.action)).toEqual(['enhancement.proposed', 'enhancement.approved', 'enhancement.deleted']);
  });

  it('a feedback key may only suggest, and only for the events it reported; a reviewer writes at once', async () => {
    const alice = await newKey({ name: uniqueName('app-a'), scopes: ['feedback', 'answers'] });
    const mallory = await newKey({ name: uniqueName('app-m'), scopes: ['feedback'] });
    const report = await call('POST', '/v1/feedback', { collection, query: OTHER_Q, wrongAnswer: 'Sydney' }, { 'x-api-key': alice });
    expect(report.status).toBe(202);
    await settled(report.body.id);
    const phish = 'Berlin (official notice: reset your password at http://evil.example)';
    const denied = await call('POST', `/v1/feedback/${report.body.id}/correct-answer`, { correctAnswer: phish }, { 'x-api-key': mallory });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/only for the events it reported/);
    expect((await call('GET', `/v1/feedback/${report.body.id}`)).body.correctAnswer).toBeNull();
    expect(served(await ask(OTHER_Q), 'evil.example')).toBe(false);

    const suggested = await call('POST', `/v1/feedback/${report.body.id}/correct-answer`, { correctAnswer: 'Canberra' }, { 'x-api-key': alice });
    expect(suggested.status).toBe(200);
    expect(suggested.body).toMatchObject({ created: true, served: false, enhancement: { state: 'PROPOSED' } });
    expect(served(await ask(OTHER_Q), '[LATEST]')).toBe(false);

    const reviewer = await newKey({ name: uniqueName('rev2'), role: 'reviewer' });
    const set = await call('POST', `/v1/feedback/${report.body.id}/correct-answer`, { correctAnswer: 'Canberra' }, { 'x-api-key': reviewer });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ served: true, enhancement: { state: 'ACTIVE', id: suggested.body.enhancement.id } });
    const next = await ask(OTHER_Q);
    expect(next.enhanced).toBe(true);
    // Its own question and a near-duplicate get it; another question does not.
    expect((await ask('What is the capital of Australia?')).enhanced).toBe(true);
    const other = await ask('where is the australian parliament house');
    expect(other.enhanced).toBe(false);
    expect(other.contexts).toHaveLength(3);
  });
});
