/**
 * docs/getting-started.md is run, not just read: every ```bash block of the page, in order, as one
 * bash script (errexit, pipefail) from the repository root — the same text a reader pastes. Only
 * the environment differs: a free PORT and a fresh DATA_DIR (the page's defaults are 3000 and
 * .data/getting-started), and no API_KEYS / DATABASE_URL / REDIS_URL / QDRANT_URL / OpenAI endpoint,
 * so `npm start` runs on the embedded defaults (real PostgreSQL, redis-server, vector store, HTTP)
 * exactly as on a fresh clone. The checks read what the page's own commands print. The page stops
 * the service itself, as a user does (`kill $SERVICE_PID`, that one pid): nothing of it may be left.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@forensics/infra';
import { processesOf } from './support/service-processes';
import { eventually } from './support/test-runtime';

const ROOT = resolve(__dirname, '..');
const PAGE = join(ROOT, 'docs', 'getting-started.md');

/** The page's ```bash blocks, in order. */
export function bashBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

describe('docs/getting-started.md, run as written', () => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'getting-started-'));
    // As root, the embedded PostgreSQL runs as the 'postgres' user, which must be able to enter it.
    chmodSync(dataDir, 0o755);
  });
  afterAll(() => {
    // The page stops the service itself; after a failure, stop whatever its script left running.
    if (child?.pid && child.exitCode === null) { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ } }
    for (const p of processesOf(dataDir)) { try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ } }
    for (const f of ['answer.json', 'feedback.json', 'traced.json', 'quarantined.json', 'after.json']) rmSync(join(ROOT, f), { force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('has the walkthrough as shell blocks', () => {
    const blocks = bashBlocks(readFileSync(PAGE, 'utf8'));
    expect(blocks.length).toBeGreaterThanOrEqual(8);
    expect(blocks.join('\n')).toContain('npm start');
  });

  it('ingest → ask → wrong answer → poll → quarantined → asked again → restored', async () => {
    const script = bashBlocks(readFileSync(PAGE, 'utf8')).join('\n');
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(await freePort()), DATA_DIR: join(dataDir, 'data') };
    for (const k of ['API_KEYS', 'DATABASE_URL', 'REDIS_URL', 'QDRANT_URL', 'OPENAI_BASE_URL', 'OPENAI_API_KEY', 'JUDGE', 'GENERATOR', 'NODE_ENV']) delete env[k];
    child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => { out += String(d); });
    child.stderr?.on('data', (d: Buffer) => { err += String(d); });
    const code = await new Promise<number | null>((r) => child!.once('exit', (c) => r(c)));
    const log = () => `stdout:\n${out}\nstderr:\n${err}\nservice log:\n${(() => { try { return readFileSync(join(dataDir, 'data', 'service.log'), 'utf8').slice(-4000); } catch { return '-'; } })()}`;
    if (code !== 0) throw new Error(`the page's commands exited with ${code}\n${log()}`);

    const lines = out.split('\n').map((l) => l.trim()).filter(Boolean);
    const at = (prefix: string) => lines.findIndex((l) => l.startsWith(prefix));
    // 1: health
    expect(lines[at('{"status"')]).toContain('"status":"ok"');
    // 2: five texts in
    expect(lines[at('{"collection"')]).toMatch(/"inserted":5/);
    // 3: the poisoned answer, from three served texts
    const servedLine = lines.find((l) => l.startsWith('["'))!;
    const served = JSON.parse(servedLine) as string[];
    expect(served).toHaveLength(3);
    const answers = lines.filter((l, i) => i > 0 && !l.startsWith('{') && !l.startsWith('['));
    expect(answers[0]).toMatch(/\b24\b/);
    // 4–5: accepted, then traced and verified
    expect(lines).toContain('QUEUED');
    expect(lines).toContain('TRACED');
    expect(lines).toContain('POISONED');
    // 6: the three planted texts — the ones served in step 3 — are quarantined
    expect(lines).toContain('3');
    const quarantined = JSON.parse(lines.filter((l) => l.startsWith('["'))[1]) as string[];
    expect([...quarantined].sort()).toEqual([...served].sort());
    // 7: answered right; 8: a text restored
    expect(answers.some((a) => /\b23\b/.test(a))).toBe(true);
    expect(lines[lines.length - 1]).toBe('RESTORED');
    // 9: `kill $SERVICE_PID` stopped all of it: the API, the worker, PostgreSQL and Redis.
    await eventually(async () => processesOf(dataDir).length === 0, 10_000, 200)
      .catch(() => { throw new Error(`left running after the page's kill $SERVICE_PID:\n${processesOf(dataDir).map((p) => `  ${p.pid} ${p.cmd.slice(0, 160)}`).join('\n')}\n${log()}`); });
  }, 15 * 60_000);
});
