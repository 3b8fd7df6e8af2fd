/**
 * Timing of UseLiteGradientProbe: 20 passages × R = 20 token-dropout runs (rate 0.1), one query.
 *   taskset -c 0,1 npx tsx bench/use-lite-probe.bench.ts [batchSize ...]
 * Prints one JSON line per batch size (median of 3 timed probes after one warm-up).
 */
import { availableParallelism } from 'node:os';
import { UseLiteGradientProbe } from '@forensics/infra/probe/use-lite';

const TOPICS = ['poisoned knowledge bases', 'retrieval-augmented generation', 'the capital of France', 'vaccine trials', 'the Apollo programme', 'coral reef bleaching', 'transformer encoders', 'medieval trade routes', 'battery chemistry', 'monetary policy'];

/** Deterministic ~70-word passages (typical retrieval chunk length). */
export function benchPassages(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const topic = TOPICS[i % TOPICS.length];
    return (
      `Passage ${i + 1} discusses ${topic} in some detail. Researchers have long argued about how ${topic} should be measured, ` +
      `which sources deserve trust, and what an attacker could gain by planting misleading statements. This text summarises the ` +
      `main findings, lists the open questions, and explains why careful provenance tracking matters whenever automated systems ` +
      `answer questions about ${topic} for users who cannot check every claim themselves.`
    );
  });
}

export async function benchUseLiteProbe(batchSize = 32, passages = 20, runs = 20): Promise<{ batchSize: number; seconds: number; perRowMs: number; stats: UseLiteGradientProbe['lastStats'] }> {
  const probe = new UseLiteGradientProbe({ batchSize });
  try {
    await probe.init();
    const texts = benchPassages(passages);
    const query = 'what could an attacker gain by poisoning a retrieval-augmented generation knowledge base?';
    const opts = { runs, seed: 2024, tokenDropout: 0.1 };
    await probe.probe(query, texts.slice(0, 2), { ...opts, runs: 2 }); // warm-up (kernel setup)
    const times: number[] = [];
    for (let k = 0; k < 3; k++) {
      const t0 = performance.now();
      await probe.probe(query, texts, opts);
      times.push((performance.now() - t0) / 1000);
    }
    times.sort((a, b) => a - b);
    const seconds = times[1];
    return { batchSize, seconds, perRowMs: (seconds * 1000) / probe.lastStats.rows, stats: probe.lastStats };
  } finally {
    await probe.close();
  }
}

async function main(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0);
  for (const bs of sizes.length ? sizes : [32]) {
    const r = await benchUseLiteProbe(bs);
    console.log(JSON.stringify({ passages: 20, runs: 20, cores: availableParallelism(), ...r }));
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
