/**
 * The main job, on embedded defaults: a fresh data dir, real PostgreSQL + Redis, the API and the
 * worker as separate processes; ingest the shipped demo corpus (20 PoisonedRAG NQ questions, 5
 * poisoned + 20 clean passages each) through the HTTP API, report one wrong answer per question,
 * wait for the tracebacks, print a per-question table and one JSON line with the totals.
 *
 *   npm run demo            (options: --questions N, --keep-data, --data-dir DIR, --only-wrong, --llm NAME)
 *
 * Who answers: by default the offline generator, an extractive stand-in without an LLM (it quotes the best-matching
 * sentence of the top passages). `--llm NAME` makes the RAG's answers, the verification re-runs and the benign texts a
 * local LLM's (LOCAL_LLM=NAME, GENERATOR=openai: the service's OpenAI generator on the embedded endpoint; the judge
 * stays JUDGE's, the rules unless set, so the tracing takes what it takes without it). LOCAL_LLM set in the
 * environment does what it does for the service: the LLM judges and answers. The first lines say which generator and
 * model answer, and the summary line names them (`generator`, `generatorModel`).
 * The data dir is wiped at the start (unless --keep-data) and kept at the end, so `npm start` on it
 * shows the demo's quarantined texts in the review console. It also subscribes a local webhook
 * receiver (signatures verified) and keeps, in the data dir, the deliveries it received
 * (`webhook-deliveries.jsonl`) and both processes' Prometheus metrics at the end (`metrics-after-demo.txt`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { answerMatches } from '@forensics/algorithms';
import { documentIdFor, stripReservedMarkers, textHash, verifyWebhookSignature } from '@forensics/core';
import { freePort, loadConfig, requireEmbeddedPrerequisites, startEmbeddedLocalLlm, startEmbeddedPostgres, startEmbeddedRedis, startupFailureLine, waitForPort, type EmbeddedService } from '@forensics/infra';
import { progressBar } from './progress';

interface DemoQuestion { id: string; question: string; correct_answer: string; incorrect_answer: string; poisoned_texts: string[]; clean_texts: string[] }

const ROOT = resolve(__dirname, '../../..');
const COLLECTION = 'demo';
const API_KEY = 'demo-key';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const t0 = Date.now();
  // Before anything starts (and before the last run's data is wiped): a machine without
  // redis-server gets one line saying what to install.
  requireEmbeddedPrerequisites({ redisUrl: process.env.REDIS_URL });
  const nQ = Number(arg('questions') ?? '20');
  const dataDir = resolve(arg('data-dir') ?? join(ROOT, '.data', 'demo'));
  const keep = process.argv.includes('--keep-data');
  const onlyWrong = process.argv.includes('--only-wrong');
  const questions: DemoQuestion[] = readFileSync(join(ROOT, 'demo', 'poisonedrag-nq-20.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).slice(0, nQ);
  const say = (m: string) => process.stderr.write(`${m}\n`);
  // --llm NAME: the local LLM as the generator only; the judge is JUDGE's (the rules when unset), not the LLM.
  const llm = arg('llm');
  const baseEnv: NodeJS.ProcessEnv = llm ? { ...process.env, LOCAL_LLM: llm, GENERATOR: 'openai', JUDGE: process.env.JUDGE ?? 'offline' } : process.env;

  // A fresh knowledge base each run, so every run starts from the same state.
  if (!keep) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const config = loadConfig({ ...baseEnv, DATA_DIR: dataDir });
  say(`answers: ${generatorLine(config)}`);
  say(`judge: ${config.judge.kind}${config.judge.kind === 'openai' ? ` (${config.judge.model}${config.localLlm ? ', the local LLM' : ''})` : ''}`);
  const services: EmbeddedService[] = [];
  const children: ChildProcess[] = [];
  const cleanup = async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : null)));
    for (const s of services.reverse()) await s.stop().catch(() => {});
  };
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
  try {
    say('starting embedded PostgreSQL and Redis …');
    const databaseUrl = config.databaseUrl ?? (await startEmbeddedPostgres(dataDir, say).then((s) => { services.push(s); return s.url; }));
    const redisUrl = config.redisUrl ?? (await startEmbeddedRedis(dataDir, say).then((s) => { services.push(s); return s.url; }));
    // The local LLM is started here, before the API and the worker, which then find it (DATA_DIR/run/local-llm.json)
    // instead of both loading it at once; it stops with the demo.
    if (config.localLlm && (config.judge.kind === 'openai' || config.generator.kind === 'openai')) services.push(await startEmbeddedLocalLlm(dataDir, config.localLlm, ROOT, say));
    const port = await freePort();
    const workerMetricsPort = await freePort();
    // A webhook receiver on loopback (allowed for the demo's processes only: WEBHOOK_ALLOW_PRIVATE).
    const received: { headers: IncomingHttpHeaders; body: string; signatureValid?: boolean }[] = [];
    // Each delivery is verified when it arrives, as a receiver must (the signature's timestamp is
    // checked against a 5-minute replay window; verifying at the end failed early ones on a slow run).
    let hookSecret: string | undefined;
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => { body += String(d); });
      req.on('end', () => {
        const signatureValid = hookSecret !== undefined && verifyWebhookSignature(hookSecret, String(req.headers['webhook-signature'] ?? ''), body, Math.floor(Date.now() / 1000));
        received.push({ headers: req.headers, body, signatureValid });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const env = {
      ...baseEnv, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, DATA_DIR: dataDir, PORT: String(port), API_KEYS: API_KEY,
      WEBHOOK_ALLOW_PRIVATE: 'true', WORKER_METRICS_PORT: String(workerMetricsPort),
    };
    const launch = (name: string, entry: string) => {
      const c = spawn(process.execPath, ['--import', 'tsx', entry], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      const tag = (d: Buffer) => { if (process.env.DEMO_VERBOSE) process.stderr.write(`[${name}] ${d}`); };
      c.stdout?.on('data', tag);
      let errBuf = '';
      c.stderr?.on('data', (d: Buffer) => { errBuf += String(d); tag(d); });
      c.once('exit', (code) => { if (code && code !== 0 && !closing) say(`${name} exited with code ${code}: ${errBuf.slice(-2000)}`); });
      children.push(c);
      return c;
    };
    let closing = false;
    launch('api', join(ROOT, 'apps', 'api', 'src', 'main.ts'));
    launch('worker', join(ROOT, 'apps', 'worker', 'src', 'main.ts'));
    await waitForPort(port, 120_000);
    const base = `http://127.0.0.1:${port}`;
    const http = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const all = Object.fromEntries(Object.entries({ 'content-type': 'application/json', 'x-api-key': API_KEY, ...headers }).filter(([, v]) => v !== ''));
      const res = await fetch(base + path, { method, headers: all, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = await res.json().catch(() => ({}));
      if (res.status >= 400) throw new Error(`${method} ${path} → ${res.status}: ${JSON.stringify(json)}`);
      return json as Record<string, unknown>;
    };
    // Under load a dependency's health probe can time out once right after start: ask again for a while.
    let health: Record<string, unknown> = {};
    for (let attempt = 1; ; attempt++) {
      try { health = await http('GET', '/health/details'); break; } catch (e) {
        if (attempt >= 30) throw e;
        await new Promise((r) => setTimeout(r, 2000));
      }
    }
    say(`API up at ${base} — judge ${JSON.stringify(health.judge)}, embedder ${String(health.embedder)}, store ${(health.vectorStore as { kind: string }).kind}`);

    // Ingest through the HTTP API, in batches, with progress. The shipped poisoned texts are
    // PoisonedRAG's subtexts I; the black-box attack injects P = S ⊕ I with S = the targeted query
    // (RAGForensics, arXiv 2504.21668, §5.1.2, "PoisonedRAG-B"), which is what we inject here.
    const poisonText = (q: DemoQuestion, i: string) => `${q.question}. ${i}`;
    const docs = questions.flatMap((q) => [
      ...q.poisoned_texts.map((text, i) => ({ id: `${q.id}-poison-${i}`, text: poisonText(q, text), metadata: { question: q.id, kind: 'poisoned' } })),
      ...q.clean_texts.map((text, i) => ({ id: `${q.id}-clean-${i}`, text, metadata: { question: q.id, kind: 'clean' } })),
    ]);
    const poisonedIds = new Set(questions.flatMap((q) => q.poisoned_texts.map((t) => documentIdFor(COLLECTION, textHash(stripReservedMarkers(poisonText(q, t)))))));
    const bar = progressBar('ingesting demo corpus');
    for (let i = 0; i < docs.length; i += 50) {
      await http('POST', `/v1/collections/${COLLECTION}/documents`, { documents: docs.slice(i, i + 50) });
      bar.update(Math.min(i + 50, docs.length), docs.length);
    }
    bar.done();

    // Per question: the RAG answers (built-in answer endpoint, answer logged); the user presses "wrong
    // answer" with the right answer and the app's back end forwards it with its service key, naming the
    // user — an `identified` report (issue 13), whose YES verdicts quarantine on their own. A browser's
    // feedback token alone is `anonymous`: its texts would wait for review unless another reporter
    // corroborated them (README "Trust and rate limits").
    const hook = await http('POST', '/v1/webhooks', { url: receiverUrl, events: ['quarantine.created', 'review.needed', 'enhancement.created'], description: 'demo receiver' });
    hookSecret = String(hook.secret);
    const app = await http('POST', '/v1/admin/keys', { name: 'demo-app', scopes: ['feedback'] });
    // Which answers were wrong: the offline generator answers extractively from the top passage, and
    // for most questions that is a clean one even with five planted texts in the top 5 (an LLM reads all
    // five and repeats the planted answer more often: --llm). The planted
    // texts are the attack whether or not this answer showed it, so by default every question is
    // reported with the attacker's target answer (as a red team, or the next user who gets it, would);
    // --only-wrong reports only the answers that were wrong. The demo says which it does.
    const answered = [];
    for (const q of questions) answered.push({ q, before: await http('POST', '/v1/rag/answer', { collection: COLLECTION, query: q.question, k: 5 }) });
    // What the API says answered, beside what the demo configured (the two are one unless the API was set up otherwise).
    const served = (answered[0]?.before.generator ?? {}) as { kind?: string; model?: string; promptVersion?: string };
    say(`answered by the ${served.kind} generator, model ${served.model}, prompt ${served.promptVersion}${served.kind === 'offline' ? ' (no LLM)' : ''}`);
    const wrongNow = answered.filter((a) => answerMatches(String(a.before.answer), a.q.incorrect_answer)).length;
    const toReport = onlyWrong ? answered.filter((a) => answerMatches(String(a.before.answer), a.q.incorrect_answer)) : answered;
    say(onlyWrong
      ? `${wrongNow} of ${questions.length} answers were wrong: pressing "wrong answer" on those ${wrongNow} (--only-wrong)`
      : `${wrongNow} of ${questions.length} answers were wrong; pressing "wrong answer" on all ${questions.length} anyway: each question has 5 planted texts in its top 5, and the attack is there whether or not this answer showed it (--only-wrong presses only on the ${wrongNow})`);
    const events: { q: DemoQuestion; id: string; before: Record<string, unknown> }[] = [];
    for (const [i, { q, before }] of toReport.entries()) {
      const servedIds = (before.contexts as { id: string }[]).map((c) => c.id);
      const r = await http('POST', '/v1/feedback', {
        collection: COLLECTION, query: q.question, wrongAnswer: q.incorrect_answer, correctAnswer: q.correct_answer, servedIds, reporter: `demo-user-${i + 1}`,
      }, { 'x-api-key': String(app.key) });
      events.push({ q, id: String(r.id), before });
    }
    const wait = progressBar('tracing');
    const final = new Map<string, Record<string, unknown>>();
    const deadline = Date.now() + 15 * 60_000;
    while (final.size < events.length && Date.now() < deadline) {
      for (const e of events) {
        if (final.has(e.id)) continue;
        const r = await http('GET', `/v1/feedback/${e.id}`);
        const done = ['TRACED', 'BOUNDED', 'FAILED'].includes(String(r.status));
        // The worker verifies and enhances right after tracing: wait for those results too.
        const enhancedOrNot = r.status === 'FAILED' || ((r.enhancements as unknown[] | undefined)?.length ?? 0) > 0;
        if (done && r.verification && enhancedOrNot) final.set(e.id, r);
      }
      wait.update(final.size, events.length);
      if (final.size < events.length) await new Promise((r) => setTimeout(r, 500));
    }
    wait.done();

    // The same questions again, after quarantine and enhancement.
    const after = new Map<string, Record<string, unknown>>();
    for (const e of events) after.set(e.id, await http('POST', '/v1/rag/answer', { collection: COLLECTION, query: e.q.question, k: 5 }));
    closing = true;

    // Per-question table and totals.
    type V = { documentId: string; label: string; cached: boolean; round: number; evidence?: { bird?: { suspicion?: number }; grada?: { suspicion?: number }; progrank?: { suspicion?: number; defendedScore?: number; score?: number } } | null };
    const ev = { candidates: 0, bird: 0, grada: 0, progrankScored: 0, progrankProbed: 0 };
    type Qr = { documentId: string; state: string };
    type Ctx = { id: string; enhancement?: boolean; enhancementId?: string };
    let benignJudged = 0, poisonedJudged = 0, tp = 0, fp = 0, undetermined = 0, judgeCalls = 0, review = 0;
    let enhanced = 0, proxyHits = 0, wrongBefore = 0, correctAfter = 0;
    const verified = { poisoned: 0, nonPoisoned: 0, inconclusive: 0 };
    const rows: string[][] = [];
    const statuses: Record<string, number> = {};
    for (const e of events) {
      const r = final.get(e.id);
      const status = String(r?.status ?? 'TIMEOUT');
      statuses[status] = (statuses[status] ?? 0) + 1;
      const verdicts = ((r?.verdicts as V[] | undefined) ?? []).filter((x) => x.round >= 0); // round -1 = verification check
      for (const x of verdicts) {
        ev.candidates++;
        if (typeof x.evidence?.bird?.suspicion === 'number') ev.bird++;
        if (typeof x.evidence?.grada?.suspicion === 'number') ev.grada++;
        if (typeof (x.evidence?.progrank?.defendedScore ?? x.evidence?.progrank?.score) === 'number') ev.progrankScored++;
        if (typeof x.evidence?.progrank?.suspicion === 'number') ev.progrankProbed++;
      }
      const records = (r?.quarantined as Qr[] | undefined) ?? [];
      const quarantined = records.filter((x) => x.state === 'QUARANTINED');
      review += records.filter((x) => x.state === 'NEEDS_REVIEW').length;
      const qTp = quarantined.filter((x) => poisonedIds.has(x.documentId)).length;
      const qFp = quarantined.length - qTp;
      const judgedBenign = verdicts.filter((v) => !poisonedIds.has(v.documentId)).length;
      benignJudged += judgedBenign;
      poisonedJudged += verdicts.length - judgedBenign;
      undetermined += verdicts.filter((v) => v.label === 'UNDETERMINED').length;
      judgeCalls += verdicts.filter((v) => !v.cached).length;
      tp += qTp; fp += qFp;
      const v = String(r?.verification ?? '-');
      if (v === 'POISONED') verified.poisoned++; else if (v === 'NON_POISONED') verified.nonPoisoned++; else verified.inconclusive++;
      const enh = ((r?.enhancements as { id: string; state: string }[] | undefined) ?? []).filter((x) => x.state === 'ACTIVE');
      if (enh.length) enhanced++;
      const a = after.get(e.id)!;
      if ((a.contexts as Ctx[]).some((c) => c.enhancement && enh.some((x) => x.id === c.enhancementId))) proxyHits++;
      const ansBefore = String(e.before.answer);
      const ansAfter = String(a.answer);
      if (answerMatches(ansBefore, e.q.incorrect_answer)) wrongBefore++;
      if (answerMatches(ansAfter, e.q.correct_answer)) correctAfter++;
      rows.push([e.q.id, trunc(e.q.question, 34), trunc(e.q.incorrect_answer, 14), trunc(ansBefore, 30), status, String(verdicts.length), `${qTp}/5`, String(qFp), v, trunc(ansAfter, 30)]);
    }
    const header = ['question', 'query', 'wrong answer', 'answer before', 'status', 'judged', 'poisoned quarantined', 'benign quarantined', 'verification', 'answer after enhancement'];
    printTable(header, rows);
    const poisonedTexts = poisonedIds.size;
    const summary = {
      events: events.length, poisonedTexts, benignJudged, quarantined: tp + fp, truePositives: tp, falsePositives: fp,
      judge: String((health.judge as { kind: string }).kind),
      seconds: +((Date.now() - t0) / 1000).toFixed(1),
      verified, enhanced: enhanced, proxyHitRateAt5: +(proxyHits / Math.max(1, events.length)).toFixed(3),
      poisonedJudged, recall: +(tp / Math.max(1, poisonedTexts)).toFixed(3), benignQuarantineRate: +(fp / Math.max(1, benignJudged)).toFixed(3),
      evidence: ev, needsReview: review, undetermined, judgeCalls, statuses,
      answersWrongBefore: wrongBefore, answersCorrectAfter: correctAfter,
      generator: String(served.kind ?? 'unknown'), generatorModel: String(served.model ?? 'unknown'),
      embedder: String(health.embedder), vectorStore: (health.vectorStore as { kind: string }).kind,
    };
    // What an operator would see: both processes' metrics, and the webhook deliveries as received
    // (each signature checked with the secret shown once at subscription).
    const scrape = async (url: string) => (await fetch(url).then((r) => r.text()).catch((e: Error) => `# ${url}: ${e.message}\n`));
    await new Promise((r) => setTimeout(r, 1500)); // let the last webhook attempts land
    writeFileSync(join(dataDir, 'metrics-after-demo.txt'),
      `# API ${base}/metrics\n${await scrape(`${base}/metrics`)}\n# worker http://127.0.0.1:${workerMetricsPort}/metrics\n${await scrape(`http://127.0.0.1:${workerMetricsPort}/metrics`)}`);
    writeFileSync(join(dataDir, 'webhook-deliveries.jsonl'), received.map((d) => JSON.stringify({
      headers: { 'webhook-id': d.headers['webhook-id'], 'webhook-signature': d.headers['webhook-signature'], 'content-type': d.headers['content-type'] }, body: JSON.parse(d.body), signatureValid: d.signatureValid,
    })).join('\n') + '\n');
    const byType: Record<string, number> = {};
    for (const d of received) { const type = String((JSON.parse(d.body) as { type?: string }).type); byType[type] = (byType[type] ?? 0) + 1; }
    (summary as Record<string, unknown>).webhooks = { received: received.length, signaturesValid: received.filter((d) => d.signatureValid).length, byType };
    console.log(JSON.stringify(summary));
    receiver.close();
    await cleanup();
    // The data dir stays (the next run starts it afresh unless --keep-data): the review console shows the results.
    say(`the demo's data stays in ${dataDir}: DATA_DIR=${dataDir} npm start, then open /console (log in with the printed key) to review the quarantined texts`);
    say(`metrics at the end: ${join(dataDir, 'metrics-after-demo.txt')}; webhook deliveries as received: ${join(dataDir, 'webhook-deliveries.jsonl')}`);
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/** Who writes the answers, in words: the first line of the demo's output. */
function generatorLine(config: ReturnType<typeof loadConfig>): string {
  const g = config.generator;
  if (g.kind === 'offline') return `the offline generator (offline-extractive-v1): no LLM, an extractive stand-in that quotes the best-matching sentence of the top passages`;
  if (config.localLlm) return `the local LLM ${g.model} (${config.localLlm.modelPath}, node-llama-cpp on this machine's CPU) through the service's OpenAI generator: the answers are the model's`;
  return `the OpenAI generator, model ${g.model} at ${config.openai.baseURL ?? 'https://api.openai.com/v1'}: the answers are the model's`;
}

function trunc(s: string, n: number): string { return s.length > n ? `${s.slice(0, n - 1)}…` : s; }

function printTable(header: string[], rows: string[][]): void {
  const w = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(w[i])).join('  ');
  console.log(line(header));
  console.log(w.map((n) => '-'.repeat(n)).join('  '));
  for (const r of rows) console.log(line(r));
}

main().catch((e) => {
  console.error(startupFailureLine('demo failed', e));
  process.exit(1);
});
