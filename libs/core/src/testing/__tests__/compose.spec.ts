import { CORE_SETTINGS, GRADIENT_PROBE, NEIGHBOUR_LISTS, VECTOR_STORE, type Clock } from '../../ports';
import {
  AnswerQueryUseCase, DispatchTracebackUseCase, EnhanceAnswerUseCase, IngestCorpusUseCase, ProcessFeedbackEventUseCase, QuarantineTextUseCase,
  RunTracebackUseCase, ReconcilePendingFeedbackUseCase, SubmitFeedbackUseCase, SyncQuarantinesUseCase, USE_CASES, VerifyTracebackUseCase,
} from '../../use-cases';
import { NeighbourCache } from '../../use-cases/traceback/run-traceback/collect-evidence';
import {
  composeUseCases, createInMemoryRepositories, HashingEmbedder, InMemoryTracebackQueue, InMemoryVectorStore, ScriptedJudge, TEST_CORE_SETTINGS,
} from '..';

/** A use case's constructor argument (every use case keeps it as `deps`). */
const depsOf = (useCase: unknown) => (useCase as { deps: Record<string, unknown> }).deps;

function ports() {
  return { repos: createInMemoryRepositories(), store: new InMemoryVectorStore(), embedder: new HashingEmbedder(32), judge: new ScriptedJudge(() => 'NO') };
}

describe('composeUseCases', () => {
  it('builds every use case of USE_CASES from its static inject map, each dependency filled', () => {
    const composed = composeUseCases(ports());
    expect(USE_CASES.length).toBeGreaterThan(0);
    for (const useCase of USE_CASES) {
      const built = composed.get<unknown>(useCase);
      expect(built).toBeInstanceOf(useCase);
      const deps = depsOf(built);
      expect(Object.keys(deps).sort()).toEqual(Object.keys(useCase.inject).sort());
      for (const [field, value] of Object.entries(deps)) {
        expect([useCase.name, field, value === undefined || value === null]).toEqual([useCase.name, field, false]);
      }
    }
  });

  it('shares dependencies: one instance per use case class, the given ports everywhere', () => {
    const p = ports();
    const composed = composeUseCases(p);
    expect(composed.get(RunTracebackUseCase)).toBe(composed.get(RunTracebackUseCase));
    expect(depsOf(composed.get(SubmitFeedbackUseCase)).dispatch).toBe(composed.get(DispatchTracebackUseCase));
    expect(depsOf(composed.get(ReconcilePendingFeedbackUseCase)).dispatch).toBe(composed.get(DispatchTracebackUseCase));
    const pipeline = depsOf(composed.get(ProcessFeedbackEventUseCase));
    expect(pipeline.traceback).toBe(composed.get(RunTracebackUseCase));
    expect(pipeline.verify).toBe(composed.get(VerifyTracebackUseCase));
    expect(pipeline.enhance).toBe(composed.get(EnhanceAnswerUseCase));
    const trace = depsOf(composed.get(RunTracebackUseCase));
    expect(trace.quarantineText).toBe(composed.get(QuarantineTextUseCase));
    expect(trace.syncQuarantines).toBe(composed.get(SyncQuarantinesUseCase));
    expect(trace.feedback).toBe(p.repos.feedback);
    expect(trace.documents).toBe(p.repos.documents);
    expect(trace.store).toBe(p.store);
    expect(trace.embedder).toBe(p.embedder);
    expect(trace.judge).toBe(p.judge);
    expect(trace.settings).toBe(composed.settings);
    expect(trace.neighbours).toBe(composed.port(NEIGHBOUR_LISTS));
    expect(depsOf(composed.get(IngestCorpusUseCase)).store).toBe(p.store);
    expect(depsOf(composed.get(DispatchTracebackUseCase)).queue).toBe(composed.queue);
    expect(depsOf(composed.get(AnswerQueryUseCase)).settings).toBe(trace.settings);
    // A second composition shares nothing with the first.
    const other = composeUseCases(ports());
    expect(other.get(RunTracebackUseCase)).not.toBe(composed.get(RunTracebackUseCase));
    expect(other.port(NEIGHBOUR_LISTS)).not.toBe(composed.port(NEIGHBOUR_LISTS));
  });

  it('defaults: test settings, an in-memory queue, no probe (with the reason), a neighbour cache, the system clock', async () => {
    const composed = composeUseCases(ports());
    expect(composed.settings).toEqual(TEST_CORE_SETTINGS);
    expect(composed.settings).toMatchObject({ defaultCollection: 'default', defaultK: 5, trace: { judgeConcurrency: 4 }, evidence: {}, policy: {}, workerActor: 'traceback-worker' });
    expect(composed.port(CORE_SETTINGS)).toBe(composed.settings);
    expect(composed.queue).toBeInstanceOf(InMemoryTracebackQueue);
    expect(composed.port(GRADIENT_PROBE)).toEqual({ probe: null, reason: 'no probe in this harness' });
    expect(composed.port(NEIGHBOUR_LISTS)).toBeInstanceOf(NeighbourCache);
    const clock = depsOf(composed.get(ProcessFeedbackEventUseCase)).clock as Clock;
    expect(Math.abs(clock.now().getTime() - Date.now())).toBeLessThan(5000);
    const failpoints = depsOf(composed.get(RunTracebackUseCase)).failpoints as { hit(n: string): void };
    expect(() => failpoints.hit('traceback.after-round')).not.toThrow();
    // No generator given: the use cases needing one are built, and calling it says what is missing.
    const generator = depsOf(composed.get(EnhanceAnswerUseCase)).generator as { benignText(r: unknown): Promise<unknown> };
    await expect(generator.benignText({ query: 'q', correctAnswer: 'c' })).rejects.toThrow(/no generator in this harness/);
  });

  it('overrides: settings merged field by field, given ports bound as they are', () => {
    const queue = new InMemoryTracebackQueue();
    const clock: Clock = { now: () => new Date(0) };
    const store = new InMemoryVectorStore();
    const composed = composeUseCases({ ...ports(), store, queue, clock, settings: { defaultK: 3, trace: { judgeConcurrency: 2, maxRounds: 4 }, policy: { name: 'judge-only' } } });
    expect(composed.settings).toMatchObject({ defaultCollection: 'default', defaultK: 3, trace: { judgeConcurrency: 2, maxRounds: 4 }, policy: { name: 'judge-only' }, workerActor: 'traceback-worker' });
    expect(composed.settings.feedbackTokens).toEqual(TEST_CORE_SETTINGS.feedbackTokens);
    expect(composed.queue).toBe(queue);
    expect(composed.port(VECTOR_STORE)).toBe(store);
    expect(depsOf(composed.get(ProcessFeedbackEventUseCase)).clock).toBe(clock);
    expect(TEST_CORE_SETTINGS.trace).toEqual({ judgeConcurrency: 4 }); // the defaults are not mutated
  });

  it('refuses a class that is not a use case', () => {
    class NotAUseCase {}
    expect(() => composeUseCases(ports()).get(NotAUseCase)).toThrow(/NotAUseCase is not a use case/);
  });

  it('the composed use cases work together: a submitted event is enqueued and QUEUED, then traced', async () => {
    const p = ports();
    const composed = composeUseCases(p);
    await composed.get(IngestCorpusUseCase).execute({ collection: 'kb', records: [{ text: 'Canberra is the capital of Australia.' }, { text: 'Sydney is a large city.' }] });
    const { event, queued } = await composed.get(SubmitFeedbackUseCase).execute({ collection: 'kb', query: 'capital of Australia?', wrongAnswer: 'Sydney' });
    expect(queued).toBe(true);
    expect(event.status).toBe('QUEUED');
    expect(event.k).toBe(5);
    expect((composed.queue as InMemoryTracebackQueue).enqueued).toEqual([event.id]);
    const out = await composed.get(RunTracebackUseCase).execute({ feedbackId: event.id });
    expect(out.status).toBe('TRACED');
    expect(out.benign).toHaveLength(2);
    expect(out.judgeCalls).toBe(2);
    expect((await p.repos.feedback.get(event.id))!.trace?.outcome).toBe('TRACED');
  });
});
