/**
 * Fills the evaluation harness's embedding cache (.eval/cache, see apps/eval/src/cached-embedder.adapter.ts)
 * for every development file in ../shared/data: questions, answers, clean/gold/poisoned texts and
 * the first N texts of each poisoned variant set. USE-lite embeds ~22 texts/s on 2 cores, so the
 * first eval of every file otherwise spends most of its time here; later runs read the cache.
 *
 *   npx tsx scripts/warm-embedding-cache.ts [--data-dir ../shared/data] [--variants 50] [--cache .eval/cache]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '@forensics/infra/config/app-config';
import { createEmbedder } from '@forensics/infra/embedders/embedder.factory';
import { CachedEmbedder } from '../apps/eval/src/cached-embedder.adapter';

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
}

async function main(): Promise<void> {
  const dir = resolve(arg('data-dir', join(__dirname, '..', '..', 'shared', 'data')));
  const perVariant = Number(arg('variants', '50'));
  if (!existsSync(dir)) { console.error(`no data folder at ${dir}: nothing to warm`); return; }
  const config = loadConfig(process.env);
  const inner = createEmbedder({ kind: config.embedder.kind, onnxModelDir: config.embedder.onnxModelDir });
  const cacheDir = resolve(arg('cache', '.eval/cache'));
  const cached = new CachedEmbedder(inner, join(cacheDir, `${inner.id.replace(/[^A-Za-z0-9._-]+/g, '_')}.bin`));
  await cached.init();
  const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort((a, b) => readFileSync(join(dir, a)).length - readFileSync(join(dir, b)).length);
  for (const f of files) {
    const texts = new Set<string>();
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line) as Record<string, unknown>;
      for (const k of ['question', 'incorrect_answer', 'correct_answer']) if (typeof r[k] === 'string') texts.add(r[k] as string);
      for (const k of ['clean_texts', 'poisoned_texts', 'gold_texts']) for (const t of (r[k] as string[] | undefined) ?? []) if (typeof t === 'string') texts.add(t);
      for (const v of Object.values((r.poisoned_variants as Record<string, string[]> | undefined) ?? {})) for (const t of (v ?? []).slice(0, perVariant)) if (typeof t === 'string') texts.add(t);
    }
    const all = [...texts];
    const t0 = Date.now();
    for (let i = 0; i < all.length; i += 64) {
      await cached.embed(all.slice(i, i + 64));
      if ((i / 64) % 10 === 0) process.stderr.write(`\r${f}: ${Math.min(i + 64, all.length)}/${all.length} (${cached.misses} embedded, ${((Date.now() - t0) / 1000).toFixed(0)} s)   `);
    }
    process.stderr.write(`\r${f}: ${all.length} texts, ${cached.misses} embedded so far, ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  }
  await cached.close();
}

main().catch((e) => { console.error(e); process.exit(1); });
