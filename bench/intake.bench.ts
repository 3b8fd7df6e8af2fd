/**
 * Intake benchmark (issue 15, item 1): `POST /v1/feedback` under load against the real service.
 *
 *   npm run -s bench:intake -- [--duration 20] [--connections 50] [--mode serve|api] [--paths both|key|token]
 *                              [--warmup 3] [--tokens N] [--settle-ms 3000] [--cpu-prof DIR] [--env KEY=VALUE ...]
 *
 * Starts embedded Postgres + Redis on a temp data dir (this process owns them, so they outlive the
 * service and the counts are read after it stopped), then the service as a child process:
 * `--mode serve` (default) = `npm start` (API + worker in one process, as the issue measured);
 * `--mode api` = `npm run start:api` alone (no worker: intake without tracing competing for the cores).
 * It ingests a small collection through the API, logs answers with feedback tokens (rows written
 * straight into Postgres and tokens signed with the service's secret: tens of thousands are needed,
 * one token gives one event), and drives `POST /v1/feedback` with autocannon (after a `--warmup`
 * of 3 s whose requests count for losses, not for the figures) for a fixed time and
 * connection count, requests alternating between the API-key path (unique body and Idempotency-Key
 * per request) and the feedback-token path (a fresh token per request). Every 202's event id is kept;
 * after the service has stopped, each is looked up in Postgres (a row) and Redis (its job, in any
 * state: BullMQ keeps a job's hash until it is removed). Prints ONE JSON line:
 *   {"reqPerSec","p50Ms","p99Ms","non2xx","errors","accepted","persisted","enqueued","lost","byPath",…,"cores","load1"}
 * lost = accepted (202, not a duplicate) without a row or without a job.
 * `--cpu-prof DIR` runs the service under `node --cpu-prof` and leaves the .cpuprofile in DIR.
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import { join, resolve } from 'node:path';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { signFeedbackToken } from '../libs/core/src/domain/feedback-token';
import { startEmbeddedPostgres, startEmbeddedRedis } from '../libs/infra/src/runtime/embedded-services';
import { freePort } from '../libs/infra/src/runtime/free-port';

const ROOT = resolve(__dirname, '..');
const DATA = resolve(ROOT, '..', 'shared', 'data', 'poisonedrag_nq.jsonl');
const API_KEY = `bench-${randomBytes(16).toString('hex')}`;
const SECRET = randomBytes(32).toString('hex');
const COLLECTION = 'bench';
const PREFIX = 'forensics';

interface Args {
  duration: number; connections: number; mode: 'serve' | 'api'; paths: 'both' | 'key' | 'token'; tokens: number | null;
  settleMs: number; cpuProf: string | null; env: Record<string, string>; keep: boolean; warmup: number;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { duration: 20, connections: 50, mode: 'serve', paths: 'both', tokens: null, settleMs: 3000, cpuProf: null, env: {}, keep: false, warmup: 3 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const val = () => inline ?? argv[++i];
    switch (flag) {
      case '--duration': a.duration = Number(val()); break;
      case '--warmup': a.warmup = Number(val()); break;
      case '--connections': a.connections = Number(val()); break;
      case '--mode': a.mode = val() as Args['mode']; break;
      case '--paths': a.paths = val() as Args['paths']; break;
      case '--tokens': a.tokens = Number(val()); break;
      case '--settle-ms': a.settleMs = Number(val()); break;
      case '--cpu-prof': a.cpuProf = resolve(val()); break;
      case '--keep': a.keep = true; break;
      case '--env': { const [k, v] = val().split(/=(.*)/s, 2); a.env[k] = v ?? ''; break; }
      default: throw new Error(`unknown argument ${argv[i]} (see the header of bench/intake.bench.ts)`);
    }
  }
  if (!(a.duration > 0) || !(a.connections > 0)) throw new Error('--duration and --connections must be positive');
  if (!(a.warmup >= 0)) throw new Error('--warmup is a number of seconds (0 = none)');
  if (!['serve', 'api'].includes(a.mode)) throw new Error('--mode is serve or api');
  if (!['both', 'key', 'token'].includes(a.paths)) throw new Error('--paths is both, key or token');
  return a;
}

const log = (m: string) => process.stderr.write(`[bench:intake] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Real texts (NQ passages) when ../shared/data is there, else generated sentences (said on stderr). */
function corpus(n: number): { texts: string[]; questions: { q: string; wrong: string }[] } {
  if (existsSync(DATA)) {
    const rows = readFileSync(DATA, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { question: string; incorrect_answer: string; poisoned_texts: string[]; clean_texts: string[] });
    const texts: string[] = [];
    for (const r of rows) for (const t of [...r.poisoned_texts.slice(0, 1), ...r.clean_texts.slice(0, 2)]) if (texts.length < n) texts.push(t);
    return { texts, questions: rows.map((r) => ({ q: r.question, wrong: r.incorrect_answer })) };
  }
  log(`${DATA} is absent: generated texts instead of NQ passages`);
  return {
    texts: Array.from({ length: n }, (_, i) => `Generated passage ${i} about topic ${i % 17}: the answer to question ${i % 31} is ${i * 7}.`),
    questions: Array.from({ length: 31 }, (_, i) => ({ q: `what is the answer to question ${i}`, wrong: String(i * 7 + 1) })),
  };
}

/** CPU seconds used so far by a process and its children still alive (/proc; Linux only, else 0). */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(f[11]) + Number(f[12]); // utime, stime
    } catch { /* gone */ }
  }
  return ticks / 100;
}

/** The pid and its descendants. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of existsSync('/proc') ? readdirSync('/proc') : []) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch { /* gone */ }
  }
  const out: number[] = [];
  const walk = (p: number) => { out.push(p); for (const c of children.get(p) ?? []) walk(c); };
  walk(root);
  return out;
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} during start`);
    try {
      const r = await fetch(`${url}/health`);
      if (r.ok) return;
    } catch { /* not listening yet */ }
    await sleep(250);
  }
  throw new Error(`the service did not become healthy within ${timeoutMs} ms`);
}

async function stopChild(child: ChildProcess, ms = 30_000): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  await exited;
  clearTimeout(timer);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const cores = os.cpus().length;
  const dataDir = mkdtempSync(join(os.tmpdir(), 'intake-bench-'));
  log(`data dir ${dataDir}, mode ${args.mode}, ${args.connections} connections × ${args.duration} s, paths ${args.paths}; load ${os.loadavg()[0].toFixed(2)} on ${cores} cores`);
  const pg = await startEmbeddedPostgres(dataDir, log);
  const redisSvc = await startEmbeddedRedis(dataDir, log);
  let child: ChildProcess | undefined;
  try {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const entry = args.mode === 'serve' ? ['apps/cli/src/main.ts', 'serve'] : ['apps/api/src/main.ts'];
    if (args.cpuProf) mkdirSync(args.cpuProf, { recursive: true });
    const nodeArgs = ['--import', 'tsx', ...(args.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', args.cpuProf] : []), ...entry];
    child = spawn(process.execPath, nodeArgs, {
      cwd: ROOT,
      env: {
        ...process.env, DATA_DIR: dataDir, DATABASE_URL: pg.url, REDIS_URL: redisSvc.url, HOST: '127.0.0.1', PORT: String(port),
        API_KEYS: API_KEY, FEEDBACK_TOKEN_SECRET: SECRET,
        // Intake capacity, not the rate limits (one address floods on purpose): limits off unless --env sets them.
        RATE_LIMIT_FEEDBACK_PER_MIN: '0', RATE_LIMIT_ADDRESS_PER_MIN: '0', RATE_LIMIT_KEY_PER_MIN: '0', RATE_LIMIT_REPORTER_PER_MIN: '0', RATE_LIMIT_ANSWERS_PER_MIN: '0',
        ...args.env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
    await waitHealthy(url, child, 180_000).catch((e) => { throw new Error(`${(e as Error).message}\n${stderr}`); });
    const headers = { 'content-type': 'application/json', 'x-api-key': API_KEY };

    // A small collection through the API (embedded with the configured embedder).
    const { texts, questions } = corpus(60);
    const ing = await fetch(`${url}/v1/collections/${COLLECTION}/documents`, { method: 'POST', headers, body: JSON.stringify({ documents: texts.map((text) => ({ text })) }) });
    if (!ing.ok) throw new Error(`ingestion answered ${ing.status}: ${await ing.text()}`);

    const db = new Client({ connectionString: pg.url });
    await db.connect();
    const docIds = (await db.query<{ id: string }>('SELECT id FROM "Document" WHERE collection = $1 ORDER BY id', [COLLECTION])).rows.map((r) => r.id);
    if (docIds.length < 3) throw new Error(`expected the ingested texts in Postgres, found ${docIds.length}`);

    // Answers + tokens: one token gives one event, so enough for the token path at well over the target rate.
    const tokenCount = args.paths === 'key' ? 0 : (args.tokens ?? Math.ceil((args.duration + args.warmup) * 4000 * (args.paths === 'both' ? 0.5 : 1)));
    const tokens: string[] = [];
    for (let off = 0; off < tokenCount; off += 5000) {
      const ids: string[] = []; const qs: string[] = []; const ans: string[] = []; const served: string[] = [];
      for (let i = off; i < Math.min(tokenCount, off + 5000); i++) {
        const id = randomUUID();
        const q = questions[i % questions.length];
        ids.push(id); qs.push(`${q.q} (${i})`); ans.push(q.wrong);
        served.push(`{${[0, 1, 2].map((j) => docIds[(i + j * 7) % docIds.length]).join(',')}}`);
        tokens.push(signFeedbackToken(id, SECRET).token);
      }
      await db.query(
        `INSERT INTO "Answer" (id, collection, query, answer, "servedIds", "servedScores", source)
         SELECT u.id, $2, u.q, u.a, u.s::text[], '{0.9,0.8,0.7}'::float8[], 'external' FROM unnest($1::uuid[], $3::text[], $4::text[], $5::text[]) AS u(id, q, a, s)`,
        [ids, COLLECTION, qs, ans, served],
      );
    }
    log(`collection '${COLLECTION}' of ${docIds.length} texts, ${tokens.length} answers with feedback tokens; load ${os.loadavg()[0].toFixed(2)}`);

    // One request pipeline per connection; each request picks its path, the context remembers it for the response.
    type Path = 'key' | 'token';
    const accepted: Record<Path, string[]> = { key: [], token: [] };
    const stats = { duplicates: 0, unqueued: 0, tokensExhausted: 0, statuses: {} as Record<string, number> };
    let seq = 0;
    let nextToken = 0;
    // CPU time per request, by process: a figure the other sessions' load disturbs less than req/s.
    const pgPid = Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const redisPid = (JSON.parse(readFileSync(join(dataDir, 'run', 'redis.json'), 'utf8')) as { pid: number }).pid;
    const groups = { api: () => [child!.pid!], worker: () => processTree(child!.pid!).slice(1), postgres: () => processTree(pgPid), redis: () => [redisPid], bench: () => [process.pid] };
    const drive = (duration: number) => autocannon({
      url: `${url}/v1/feedback`,
      connections: args.connections,
      duration,
      timeout: 10,
      requests: [{
        method: 'POST',
        setupRequest: (req: autocannon.Request, context: Record<string, unknown>) => {
          const n = seq++;
          let path: Path = args.paths === 'both' ? (n % 2 ? 'token' : 'key') : args.paths;
          if (path === 'token' && nextToken >= tokens.length) { stats.tokensExhausted++; path = 'key'; }
          context.path = path;
          if (path === 'token') {
            return { ...req, headers: { 'content-type': 'application/json', authorization: `FeedbackToken ${tokens[nextToken++]}` }, body: '{"correctAnswer":"the right one"}' };
          }
          const q = questions[n % questions.length];
          return {
            ...req,
            headers: { ...headers, 'idempotency-key': `bench-${n}` },
            body: JSON.stringify({ collection: COLLECTION, query: `${q.q} #${n}`, wrongAnswer: q.wrong, servedIds: [docIds[n % docIds.length], docIds[(n + 1) % docIds.length]], reporter: 'bench' }),
          };
        },
        onResponse: (status: number, body: string, context: Record<string, unknown>) => {
          stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
          if (status !== 202) return;
          const r = JSON.parse(body) as { id: string; duplicate: boolean; queued: boolean };
          if (r.duplicate) { stats.duplicates++; return; }
          if (!r.queued) stats.unqueued++;
          accepted[context.path as Path].push(r.id);
        },
      }],
    } as autocannon.Options);
    // Warm-up (JIT, connection pools, the first batches): its requests are real and counted for losses,
    // not for the figures (req/s, latency, CPU per request), which come from the measured run only.
    if (args.warmup > 0) {
      const w = await drive(args.warmup);
      log(`warm-up: ${w.requests.total} requests in ${args.warmup} s (not in the figures); p99 ${w.latency.p99} ms`);
    }
    const cpuBefore = Object.fromEntries(Object.entries(groups).map(([k, f]) => [k, cpuSeconds(f())]));
    const run = drive(args.duration);
    const result = await run;
    const load1 = os.loadavg()[0];
    const cpuMsPerReq = Object.fromEntries(Object.entries(groups).map(([k, f]) => [k, +(((cpuSeconds(f()) - cpuBefore[k]) * 1000) / Math.max(1, result.requests.total)).toFixed(3)]));
    log(`autocannon done: ${result.requests.total} requests, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts; load ${load1.toFixed(2)}`);
    const l = result.latency as unknown as Record<string, number>;
    log(`latency ms: p50 ${l.p50}, p90 ${l.p90}, p97.5 ${l.p97_5}, p99 ${l.p99}, p99.9 ${l.p99_9}, max ${l.max}; req/s per second: ${(result.requests as unknown as { p50: number; min: number; max: number }).min}..${(result.requests as unknown as { max: number }).max}`);

    // A bounded enqueue may complete after its 202 (queued:false); give it (and the reconciler in serve mode) a moment.
    await sleep(args.settleMs);
    await stopChild(child);
    if (child.exitCode !== 0 && child.exitCode !== null) log(`service exited with ${child.exitCode}: ${stderr.slice(-1000)}`);

    const redis = new IORedis(redisSvc.url, { maxRetriesPerRequest: 3 });
    const count = async (ids: string[]) => {
      const rows = new Map<string, string>();
      for (let i = 0; i < ids.length; i += 10_000) {
        const r = await db.query<{ id: string; status: string }>('SELECT id, status FROM "FeedbackEvent" WHERE id = ANY($1::uuid[])', [ids.slice(i, i + 10_000)]);
        for (const x of r.rows) rows.set(x.id, x.status);
      }
      let jobs = 0; let lost = 0;
      for (let i = 0; i < ids.length; i += 2000) {
        const chunk = ids.slice(i, i + 2000);
        const pipe = redis.pipeline();
        for (const id of chunk) pipe.exists(`${PREFIX}:traceback:trace-${id}`);
        const out = (await pipe.exec()) ?? [];
        chunk.forEach((id, j) => {
          // A job the worker finished may have been removed (removeOnComplete); its row then says the worker had it.
          const job = out[j]?.[1] === 1 || ['TRACING', 'TRACED', 'BOUNDED', 'FAILED'].includes(rows.get(id) ?? '');
          if (job) jobs++;
          if (!job || !rows.has(id)) lost++;
        });
      }
      return { accepted: ids.length, persisted: rows.size, enqueued: jobs, lost };
    };
    const byPath = { key: await count(accepted.key), token: await count(accepted.token) };
    const rowsInDb = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM "FeedbackEvent"')).rows[0].n);
    const waiting = await redis.llen(`${PREFIX}:traceback:wait`);
    redis.disconnect();
    await db.end();

    const sum = (k: 'accepted' | 'persisted' | 'enqueued' | 'lost') => byPath.key[k] + byPath.token[k];
    console.log(JSON.stringify({
      reqPerSec: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts,
      accepted: sum('accepted'), persisted: sum('persisted'), enqueued: sum('enqueued'), lost: sum('lost'),
      duplicates: stats.duplicates, queuedFalse: stats.unqueued, rowsInDb, jobsWaiting: waiting, statuses: stats.statuses, byPath,
      cpuMsPerReq, tokensExhausted: stats.tokensExhausted, mode: args.mode, connections: args.connections, durationS: args.duration, warmupS: args.warmup, cores, load1: +load1.toFixed(2),
    }));
  } finally {
    if (child) await stopChild(child).catch(() => {});
    await redisSvc.stop().catch(() => {});
    await pg.stop().catch(() => {});
    if (!args.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack ?? e.message : String(e));
  process.exit(1);
});
