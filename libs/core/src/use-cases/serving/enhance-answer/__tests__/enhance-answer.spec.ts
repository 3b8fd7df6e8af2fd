import { AccessDeniedError } from '../../../identity/manage-keys/identity';
import { composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryVectorStore, ScriptedJudge } from '../../../../testing';
import type { Generator } from '../../../../ports/generator.port';
import type { NewFeedback } from '../../../../ports/repositories';
import { ApproveEnhancementUseCase } from '../../approve-enhancement/approve-enhancement.use-case';
import { EnhanceAnswerUseCase } from '../enhance-answer.use-case';

const generator: Generator = {
  kind: 'fixed', model: 'fixed-1',
  async generate() { return { answer: 'x', promptVersion: 'p', latencyMs: 0 }; },
  async benignText(r) { return { text: `${r.correctAnswer} is the answer.`, promptVersion: 'bte-test' }; },
};

async function setup() {
  const repos = createInMemoryRepositories();
  const store = new InMemoryVectorStore();
  const embedder = new HashingEmbedder(32);
  const uc = composeUseCases({ repos, store, embedder, generator, judge: new ScriptedJudge(() => 'NO') });
  await repos.documents.ensureCollection({ name: 'kb', embedder: embedder.id, dimension: 32 });
  await store.ensureCollection('kb', 32);
  const report = async (over: Partial<NewFeedback>) => (await repos.feedback.create({
    collection: 'kb', query: 'who designed canberra', wrongAnswer: 'Frank Lloyd Wright', correctAnswer: 'Walter Burley Griffin', k: 3,
    trust: 'anonymous', reporterSource: 'addr:a', reportKey: 'rk', ...over,
  })).event;
  const proxies = async () => (await store.listPage('kb', { limit: 100 })).records.filter((p) => p.payload.kind === 'bte-proxy').map((p) => p.id);
  return { repos, uc, report, proxies, enhance: uc.get(EnhanceAnswerUseCase) };
}

describe('EnhanceAnswerUseCase: who may write what is served', () => {
  it("an anonymous report's answer is a proposal with no proxy in the store; a reviewer's approval serves it", async () => {
    const { report, enhance, proxies, uc } = await setup();
    const ev = await report({});
    const r = await enhance.execute({ feedbackId: ev.id, actor: 'worker', authority: 'report' });
    expect(r).toMatchObject({ created: true, enhancement: { state: 'PROPOSED' }, decision: { state: 'PROPOSED' } });
    expect(await proxies()).toEqual([]);
    const approved = await uc.get(ApproveEnhancementUseCase).execute({ enhancementId: r.enhancement.id, actor: 'user:rev' });
    expect(approved).toMatchObject({ state: 'ACTIVE', approvedBy: 'user:rev' });
    expect(await proxies()).toEqual([r.enhancement.proxyId]);
  });

  it('a second distinct address with the same report and answer corroborates; an identified report is live', async () => {
    const { report, enhance } = await setup();
    await report({ reporterSource: 'addr:b', correctAnswer: 'walter burley griffin' });
    const ev = await report({});
    expect((await enhance.execute({ feedbackId: ev.id, actor: 'worker', authority: 'report' })).enhancement.state).toBe('ACTIVE');

    const idf = await report({ trust: 'identified', reporterSource: 'key:k1', reportKey: 'other' });
    expect((await enhance.execute({ feedbackId: idf.id, actor: 'worker', authority: 'report' })).enhancement.state).toBe('ACTIVE');
  });

  it('an identified report the consensus check suspected is only proposed', async () => {
    const { report, enhance, repos } = await setup();
    const ev = await report({ trust: 'identified', reporterSource: 'key:k1' });
    await repos.feedback.update(ev.id, { trace: { state: { round: 0, poisoned: [], benign: [], undetermined: [], bounded: false } as never, suspectedFalseFlag: true } });
    const r = await enhance.execute({ feedbackId: ev.id, actor: 'worker', authority: 'report' });
    expect(r.enhancement).toMatchObject({ state: 'PROPOSED', reason: expect.stringMatching(/consensus check/) });
  });

  it('a suggestion needs the reporting key: another key is refused and the event is left as it was', async () => {
    const { report, enhance, repos } = await setup();
    const ev = await report({ trust: 'identified', reporterSource: 'key:alice/end-user-7', correctAnswer: null });
    await expect(enhance.execute({ feedbackId: ev.id, actor: 'service:m', authority: 'suggestion', suggestedBy: 'key:mallory', correctAnswer: 'Berlin' }))
      .rejects.toBeInstanceOf(AccessDeniedError);
    await expect(enhance.execute({ feedbackId: ev.id, actor: 'service:m', authority: 'suggestion', correctAnswer: 'Berlin' })).rejects.toBeInstanceOf(AccessDeniedError);
    expect((await repos.feedback.get(ev.id))!.correctAnswer).toBeNull();
    const own = await enhance.execute({ feedbackId: ev.id, actor: 'service:a', authority: 'suggestion', suggestedBy: 'key:alice', correctAnswer: 'Walter Burley Griffin' });
    expect(own.enhancement.state).toBe('PROPOSED');
    expect(own.decision.reason).toMatch(/suggested by a service key/);
  });
});
