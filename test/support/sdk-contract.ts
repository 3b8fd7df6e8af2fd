/**
 * The TypeScript runner of the SDK contract (test/contract/README.md): the pattern matcher, and one table from the
 * vectors' calls to ForensicsClient's methods. The Python runner (libs/python-client/tests/contract.py) is its twin.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ForensicsApiError, type ForensicsClient } from '@forensics/client';
import { ROOT } from './test-runtime';

export const CONTRACT_DIR = join(ROOT, 'test', 'contract');

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Vars = Record<string, Json>;

export interface Step {
  call: string;
  args?: Record<string, Json>;
  client?: 'admin' | 'none' | 'wrongKey';
  request?: { method: string; path: string; query?: Json; headers?: Record<string, Json>; body?: Json };
  response?: Json;
  error?: Json;
}
export interface Vector { file: string; name: string; steps: Step[] }

export function loadVectors(): Vector[] {
  const dir = join(CONTRACT_DIR, 'vectors');
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((file) => ({ file, ...JSON.parse(readFileSync(join(dir, file), 'utf8')) }));
}

const OPERATORS = new Set(['$type', '$oneOf', '$contains', '$length', '$each', '$any', '$save']);
const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const WHOLE_VAR = /^\{\{(\w+)\}\}$/;

/** `{{name}}` replaced by variables in a string; a string that is just `{{name}}` becomes the variable's value. */
export function interpolate(p: string, vars: Vars): Json {
  const whole = WHOLE_VAR.exec(p);
  if (whole) {
    if (!(whole[1] in vars)) throw new Error(`variable ${whole[1]} is not set`);
    return vars[whole[1]];
  }
  return p.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (!(name in vars)) throw new Error(`variable ${name} is not set`);
    return String(vars[name]);
  });
}

/** Arguments with their variables filled in (no operators in arguments). */
export function resolve(v: Json, vars: Vars): Json {
  if (typeof v === 'string') return interpolate(v, vars);
  if (Array.isArray(v)) return v.map((x) => resolve(x, vars));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x, vars)]));
  return v;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a)) return isObject(b) && Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => k in b && deepEqual(a[k], b[k]));
  return a === b;
}

function typeOk(t: Json, v: unknown): boolean {
  switch (t) {
    case 'string': return typeof v === 'string';
    case 'number': return typeof v === 'number';
    case 'integer': return Number.isInteger(v);
    case 'boolean': return typeof v === 'boolean';
    case 'null': return v === null;
    case 'array': return Array.isArray(v);
    case 'object': return isObject(v);
    default: throw new Error(`unknown $type ${JSON.stringify(t)}`);
  }
}

/** The mismatches of `value` against `pattern` (empty: it matches); `$save`s go into `vars` as they match. */
export function match(pattern: Json, value: unknown, vars: Vars, at = '$'): string[] {
  const miss = (why: string) => [`${at}: ${why} (got ${JSON.stringify(value)?.slice(0, 200)})`];
  if (typeof pattern === 'string') {
    let expected: Json;
    try { expected = interpolate(pattern, vars); } catch (e) { return miss((e as Error).message); }
    return deepEqual(expected, value) ? [] : miss(`expected ${JSON.stringify(expected)}`);
  }
  if (pattern === null || typeof pattern === 'boolean' || typeof pattern === 'number') return value === pattern ? [] : miss(`expected ${JSON.stringify(pattern)}`);
  if (Array.isArray(pattern)) {
    if (!Array.isArray(value)) return miss('expected a list');
    if (value.length !== pattern.length) return miss(`expected ${pattern.length} elements`);
    return pattern.flatMap((p, i) => match(p, value[i], vars, `${at}[${i}]`));
  }
  const keys = Object.keys(pattern);
  if (keys.some((k) => k.startsWith('$') && k !== '$more')) {
    const unknown = keys.filter((k) => !OPERATORS.has(k));
    if (unknown.length) return miss(`unknown operator ${unknown.join(', ')}`);
    const out: string[] = [];
    if ('$type' in pattern) { try { if (!typeOk(pattern.$type, value)) out.push(...miss(`expected a ${pattern.$type}`)); } catch (e) { out.push(...miss((e as Error).message)); } }
    if ('$oneOf' in pattern && !(pattern.$oneOf as Json[]).some((p) => match(p, value, { ...vars }, at).length === 0)) out.push(...miss(`expected one of ${JSON.stringify(pattern.$oneOf)}`));
    if ('$contains' in pattern) {
      const s = interpolate(pattern.$contains as string, vars);
      if (typeof value !== 'string' || !value.includes(String(s))) out.push(...miss(`expected a string holding ${JSON.stringify(s)}`));
    }
    if ('$length' in pattern && !((typeof value === 'string' || Array.isArray(value)) && value.length === pattern.$length)) out.push(...miss(`expected length ${pattern.$length}`));
    if ('$each' in pattern) {
      if (!Array.isArray(value)) out.push(...miss('expected a list'));
      else value.forEach((x, i) => out.push(...match(pattern.$each, x, { ...vars }, `${at}[${i}]`)));
    }
    if (out.length === 0 && '$save' in pattern) vars[pattern.$save as string] = value as Json;
    return out;
  }
  if (!isObject(value)) return miss('expected an object');
  const out: string[] = [];
  for (const k of keys) {
    if (k === '$more') continue;
    const p = pattern[k];
    if (isObject(p) && p.$absent === true) { if (k in value) out.push(`${at}.${k}: expected absent`); continue; }
    if (!(k in value)) { out.push(`${at}.${k}: missing`); continue; }
    out.push(...match(p, value[k], vars, `${at}.${k}`));
  }
  if (pattern.$more !== true) for (const k of Object.keys(value)) if (!(k in pattern)) out.push(`${at}.${k}: not in the contract (${JSON.stringify(value[k])?.slice(0, 120)})`);
  return out;
}

/** One HTTP request as the vectors see it. */
export interface Seen { method: string; path: string; query: Record<string, string>; headers: Record<string, string>; body: Json }

/** A fetch that records what the client sends, then sends it (to the real service). */
export function recordingFetch(seen: Seen[]): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(String(input));
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => { headers[k.toLowerCase()] = v; });
    seen.push({
      method: init.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : null,
    });
    return fetch(input, init);
  };
}

/** The request patterns of a step against what the client sent (every request must match; headers named only). */
export function matchRequests(expected: NonNullable<Step['request']>, seen: Seen[], vars: Vars): string[] {
  if (seen.length === 0) return ['no request was sent'];
  return seen.flatMap((s, i) => [
    ...match(expected.method, s.method, vars, `request[${i}].method`),
    ...match(expected.path, s.path, vars, `request[${i}].path`),
    ...match(expected.query ?? {}, s.query, vars, `request[${i}].query`),
    ...match({ ...(expected.headers ?? {}), $more: true }, s.headers, vars, `request[${i}].headers`),
    ...match(expected.body === undefined ? null : expected.body, s.body, vars, `request[${i}].body`),
  ]);
}

type A = Record<string, any>;
/** The vectors' calls → this client's methods. */
export const CALLS: Record<string, (c: ForensicsClient, a: A) => Promise<unknown>> = {
  ingest: (c, a) => c.ingest(a.collection, a.documents),
  servingStatus: (c, a) => c.servingStatus(a.collection, { texts: a.texts, ids: a.ids }),
  setVettedBaseline: (c, a) => c.setVettedBaseline(a.collection, a.before),
  logAnswer: (c, a) => c.logAnswer({ query: a.query, answer: a.answer, servedIds: a.servedIds, collection: a.collection }),
  ragAnswer: (c, a) => c.ragAnswer({ query: a.query, collection: a.collection, k: a.k }),
  reportWrongAnswer: (c, { idempotencyKey, ...report }) => c.reportWrongAnswer(report as never, { idempotencyKey }),
  reportWithToken: (c, { feedbackToken, ...rest }) => c.reportWithToken(feedbackToken, rest),
  getFeedback: (c, a) => c.getFeedback(a.id),
  waitForTrace: (c, a) => c.waitForTrace(a.id, { timeoutMs: 180_000, intervalMs: 250 }),
  setCorrectAnswer: (c, a) => c.setCorrectAnswer(a.id, a.correctAnswer),
  listQuarantine: (c, a) => c.listQuarantine({ state: a.state, collection: a.collection }),
  approve: (c, a) => c.approve(a.id, a.note),
  restore: (c, a) => c.restore(a.id, a.note),
};

/** Runs one step: the call, then its request and its response or error against the vector; the mismatches. */
export async function runStep(step: Step, clientFor: (which: string, seen: Seen[]) => ForensicsClient, vars: Vars): Promise<string[]> {
  const fn = CALLS[step.call];
  if (!fn) return [`unknown call ${step.call}`];
  const seen: Seen[] = [];
  const client = clientFor(step.client ?? 'admin', seen);
  const args = resolve((step.args ?? {}) as Json, vars) as A;
  // Undefined, not absent: the TypeScript client drops undefined fields from JSON as the Python one omits None.
  let result: unknown;
  let error: unknown;
  try { result = await fn(client, args); } catch (e) { error = e; }
  const out = step.request ? matchRequests(step.request, seen, vars) : [];
  if (step.error !== undefined) {
    if (!(error instanceof ForensicsApiError)) out.push(`expected the client's API error, got ${error ? String(error) : `a result ${JSON.stringify(result)?.slice(0, 200)}`}`);
    else out.push(...match(step.error, { status: error.status, problem: error.problem }, vars, 'error'));
  } else if (error) {
    out.push(`the call failed: ${String(error)}`);
  } else {
    out.push(...match(step.response === undefined ? null : step.response, result === undefined ? null : result, vars, 'response'));
  }
  return out;
}
