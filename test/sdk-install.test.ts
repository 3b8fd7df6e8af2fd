/**
 * @forensics/client installs like a real package (issue 61 item 4): `npm pack` in libs/client (its prepack builds
 * dist/ with tsc: ESM, CommonJS, .d.ts), the tarball installed with `npm install --offline` into an empty plain
 * JavaScript project in a temporary directory (the client has no runtime dependency, so nothing comes from a
 * registry), then one report round trip against the real service (HTTP API + worker) with `require` and with
 * `import`, and the declarations type-checked from both module kinds. Prints the timings as one JSON line.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, type TestApp } from './support/test-app';
import { ROOT, TEST_API_KEY, uniqueName } from './support/test-runtime';

const PKG = join(ROOT, 'libs', 'client');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// A user's npm settings must not send this install anywhere (no registry is needed, none may be asked).
const npmEnv = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

/** The same round trip in both module systems: ingest, log an answer, report it by its token, wait for the trace. */
const roundTrip = (load: string) => `${load}
const [url, key, collection] = process.argv.slice(2);
(async () => {
  const client = new ForensicsClient({ baseUrl: url, apiKey: key });
  const { ids } = await client.ingest(collection, [
    { text: 'Who wrote Moby-Dick? The novel Moby-Dick was written by the English author Charles Dickens.' },
    { text: 'Moby-Dick; or, The Whale is an 1851 novel by American writer Herman Melville about the voyage of the whaling ship Pequod.' },
  ]);
  const logged = await client.logAnswer({ collection, query: 'who wrote moby dick', answer: 'Charles Dickens', servedIds: ids });
  const report = await client.reportWithToken(logged.feedbackToken, { correctAnswer: 'Herman Melville' });
  const event = await client.waitForTrace(report.id, { timeoutMs: 120000, intervalMs: 200 });
  let notFound = null;
  try { await client.getFeedback('00000000-0000-0000-0000-000000000000'); } catch (e) { notFound = e instanceof ForensicsApiError ? e.status : String(e); }
  console.log(JSON.stringify({ status: event.status, reportId: report.id, eventId: event.id, judged: event.verdicts.map((v) => v.documentId).sort(), ids: [...ids].sort(), notFound }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('@forensics/client: npm pack, install into a plain JavaScript project, call the service', () => {
  let t: TestApp;
  let dir: string;
  const timings: Record<string, number> = {};
  const timed = <T>(name: string, fn: () => T): T => {
    const t0 = Date.now();
    try { return fn(); } finally { timings[name] = (Date.now() - t0) / 1000; }
  };
  // Not execFileSync: the service runs in this process and must answer while the script waits.
  const run = promisify(execFile);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'forensics-client-install-'));
    t = await createTestApp({ api: true, worker: true, env: { JUDGE_MODEL: uniqueName('install-judge') } });
  });
  afterAll(async () => {
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    process.stdout.write(`${JSON.stringify({ test: 'ts-client-install', ...timings })}\n`);
  });

  let tarball = '';
  let app = '';

  it('packs a built package: dist (ESM, CommonJS, .d.ts), README, LICENSE, no TypeScript sources', () => {
    const out = timed('pack_s', () => execFileSync(NPM, ['pack', '--json', '--pack-destination', dir], { cwd: PKG, env: npmEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    const [info] = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; name: string; version: string; files: { path: string }[] }[];
    const manifest = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
    expect({ name: info.name, version: info.version }).toEqual({ name: '@forensics/client', version: manifest.version });
    const files = info.files.map((f) => f.path).sort();
    for (const f of ['LICENSE', 'README.md', 'package.json', 'dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/esm/package.json', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json']) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => f.includes('__tests__'))).toEqual([]);
    expect(manifest.license).toBe('MIT');
    expect(Object.keys(manifest.dependencies ?? {})).toEqual([]);
    tarball = join(dir, info.filename);
    expect(existsSync(tarball)).toBe(true);
  });

  it('installs from the tarball into an empty project with no registry', () => {
    app = join(dir, 'app');
    execFileSync('mkdir', [app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'plain-js-app', version: '1.0.0', private: true }));
    timed('install_s', () => execFileSync(NPM, ['install', '--offline', '--no-audit', '--no-fund', '--no-package-lock', tarball], { cwd: app, env: npmEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
    const installed = join(app, 'node_modules', '@forensics', 'client');
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).name).toBe('@forensics/client');
    // Nothing but the client came in (no runtime dependency), and no source folder.
    expect(readdirSync(join(app, 'node_modules')).filter((d) => !d.startsWith('.'))).toEqual(['@forensics']);
    expect(existsSync(join(installed, 'src'))).toBe(false);
  });

  it('works with require (CommonJS) and import (ESM) against the real service', async () => {
    writeFileSync(join(app, 'report.cjs'), roundTrip("const { ForensicsClient, ForensicsApiError } = require('@forensics/client');"));
    writeFileSync(join(app, 'report.mjs'), roundTrip("import { ForensicsClient, ForensicsApiError } from '@forensics/client';"));
    for (const [file, kind] of [['report.cjs', 'require'], ['report.mjs', 'import']] as const) {
      const collection = uniqueName(`install-${kind}`);
      const t0 = Date.now();
      const { stdout } = await run(process.execPath, [file, t.url, TEST_API_KEY, collection], { cwd: app, encoding: 'utf8', timeout: 150_000 });
      timings[`${kind}_roundtrip_s`] = (Date.now() - t0) / 1000;
      const r = JSON.parse(stdout.trim().split('\n').pop()!);
      expect({ kind, status: r.status, same: r.eventId === r.reportId, notFound: r.notFound }).toEqual({ kind, status: 'TRACED', same: true, notFound: 404 });
      expect(r.judged).toEqual(r.ids);
    }
    // Each entry point loads its own build: the ESM one from dist/esm, the CommonJS one from dist/cjs.
    const where = execFileSync(process.execPath, ['-e', "console.log(require.resolve('@forensics/client'))"], { cwd: app, encoding: 'utf8' }).trim();
    expect(where).toBe(join(app, 'node_modules/@forensics/client/dist/cjs/index.js'));
    const esm = execFileSync(process.execPath, ['--input-type=module', '-e', "console.log(import.meta.resolve('@forensics/client'))"], { cwd: app, encoding: 'utf8' }).trim();
    expect(esm).toBe(`file://${join(app, 'node_modules/@forensics/client/dist/esm/index.js')}`);
  });

  it('ships declarations that type-check from ESM and CommonJS consumers (moduleResolution nodenext)', () => {
    const use = "const c = new ForensicsClient({ baseUrl: 'http://localhost:3000' });\nconst s: Promise<FeedbackEvent> = c.waitForTrace('id');\n// @ts-expect-error a number is not a collection name\nc.ingest(1, []);\nvoid s;\n";
    writeFileSync(join(app, 'use.mts'), `import { ForensicsClient, type FeedbackEvent } from '@forensics/client';\n${use}`);
    writeFileSync(join(app, 'use.cts'), `import { ForensicsClient, type FeedbackEvent } from '@forensics/client';\n${use}`);
    const tsc = require.resolve('typescript/bin/tsc');
    timed('typecheck_s', () => execFileSync(process.execPath, [
      tsc, '--noEmit', '--strict', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
      '--typeRoots', join(ROOT, 'node_modules', '@types'), '--types', 'node', 'use.mts', 'use.cts',
    ], { cwd: app, encoding: 'utf8' }));
  });
});
