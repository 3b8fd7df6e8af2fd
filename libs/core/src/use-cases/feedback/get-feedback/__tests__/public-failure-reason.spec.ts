import { PUBLIC_FAILURE_REASON_MAX, publicFailureReason } from '../public-failure-reason';

describe('publicFailureReason', () => {
  it('keeps a short one-line reason as it is', () => {
    expect(publicFailureReason('judge error: 401 invalid api key')).toEqual({ reason: 'judge error: 401 invalid api key', detailsWithheld: false });
    expect(publicFailureReason(null)).toEqual({ reason: null, detailsWithheld: false });
  });

  it('drops the stack, code lines and file paths', () => {
    const full = [
      "TypeError: Cannot read properties of undefined (reading 'x') at /work/main/libs/core/src/use-cases/run-traceback/run-traceback.use-case.ts:120:17",
      '    at RunTracebackUseCase.execute (/work/main/libs/core/src/use-cases/run-traceback/run-traceback.use-case.ts:120:17)',
      '  118 |   const y = secret.x;',
      '    at node:internal/process/task_queues:95:5',
    ].join('\n');
    const r = publicFailureReason(full);
    expect(r.detailsWithheld).toBe(true);
    expect(r.reason).toBe("TypeError: Cannot read properties of undefined (reading 'x') at <path>");
    expect(r.reason).not.toMatch(/\/work|\.ts|:\d+:\d+|secret/);
    expect(publicFailureReason('failed in file:///srv/app/dist/main.js:3:9 and C:\\app\\x.js:1').reason).toBe('failed in <path> and <path>');
    expect(publicFailureReason('Error: boom (src/judge.ts:12:3)').reason).toBe('Error: boom (<path>)');
  });

  it('caps the length', () => {
    const r = publicFailureReason('x'.repeat(2000));
    expect(r.reason!.length).toBe(PUBLIC_FAILURE_REASON_MAX);
    expect(r.reason!.endsWith('…')).toBe(true);
    expect(r.detailsWithheld).toBe(true);
  });
});
