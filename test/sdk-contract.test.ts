/**
 * The SDK contract, TypeScript side (test/contract/README.md): every vector of test/contract/vectors run with
 * ForensicsClient against the real service (HTTP API + worker on the test Postgres and Redis, the embedded vector
 * store, the offline judge). libs/python-client/tests/test_contract.py runs the same files with the Python client.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ForensicsClient } from '@forensics/client';
import { createTestApp, type TestApp } from './support/test-app';
import { CALLS, CONTRACT_DIR, loadVectors, match, recordingFetch, runStep, type Seen, type Vars } from './support/sdk-contract';
import { TEST_API_KEY, uniqueName } from './support/test-runtime';

const vectors = loadVectors();
const matcher = JSON.parse(readFileSync(join(CONTRACT_DIR, 'matcher-cases.json'), 'utf8')) as { vars: Vars; cases: { pattern: any; value: any; match: boolean; saved?: Vars }[] };

describe('SDK contract: the matcher reads the vectors as the Python runner does', () => {
  it.each(matcher.cases.map((c, i) => [i, c] as const))('case %i', (_i, c) => {
    const vars: Vars = { ...matcher.vars };
    const mismatches = match(c.pattern, c.value, vars);
    expect({ pattern: c.pattern, value: c.value, match: mismatches.length === 0 }).toEqual({ pattern: c.pattern, value: c.value, match: c.match });
    if (c.saved) {
      const saved = Object.fromEntries(Object.entries(vars).filter(([k]) => !(k in matcher.vars)));
      expect(saved).toEqual(c.saved);
    }
  });
});

describe('SDK contract: the TypeScript client against the real service', () => {
  let t: TestApp;
  const wrongKey = `rfk_${randomBytes(16).toString('hex')}`;
  beforeAll(async () => {
    t = await createTestApp({ api: true, worker: true, env: { JUDGE_MODEL: uniqueName('contract-judge') } });
  });
  afterAll(async () => { await t?.close(); });

  it('has vectors, and every call of the table is in one', () => {
    const used = new Set(vectors.flatMap((v) => v.steps.map((s) => s.call)));
    expect(vectors.length).toBeGreaterThanOrEqual(11);
    expect([...Object.keys(CALLS)].filter((c) => !used.has(c))).toEqual([]);
    // Every public method of the client is in the table (a new call needs a vector).
    const methods = Object.getOwnPropertyNames(ForensicsClient.prototype).filter((m) => m !== 'constructor' && m !== 'call' && m !== 'backoff');
    expect(methods.filter((m) => !(m in CALLS))).toEqual([]);
  });

  it.each(vectors.map((v) => [v.file, v] as const))('%s', async (_file, vector) => {
    const vars: Vars = {
      collection: uniqueName('contract'), reporter: uniqueName('contract-user'), nonce: randomBytes(6).toString('hex'),
      apiKey: TEST_API_KEY, wrongKey, tomorrow: new Date(Date.now() + 86_400_000).toISOString(),
    };
    const keys: Record<string, string | undefined> = { admin: TEST_API_KEY, none: undefined, wrongKey };
    const clientFor = (which: string, seen: Seen[]) => {
      if (!(which in keys)) throw new Error(`unknown client ${which}`);
      return new ForensicsClient({ baseUrl: t.url, apiKey: keys[which], fetch: recordingFetch(seen) });
    };
    for (const [i, step] of vector.steps.entries()) {
      const mismatches = await runStep(step, clientFor, vars);
      expect({ step: `${i} ${step.call}`, mismatches }).toEqual({ step: `${i} ${step.call}`, mismatches: [] });
    }
  });
});
