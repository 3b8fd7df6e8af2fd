/** In-memory fakes of the ports, shared by unit tests of the use cases and by the evaluation harness. */
export { createInMemoryRepositories, type InMemoryState } from './in-memory-repositories';
export { InMemoryVectorStore } from './in-memory-vector-store';
export { InMemoryTracebackQueue } from './in-memory-traceback-queue';
export { HashingEmbedder, ScriptedJudge } from './test-doubles';
export { composeUseCases, TEST_CORE_SETTINGS, type ComposePorts, type ComposedUseCases } from './compose';
