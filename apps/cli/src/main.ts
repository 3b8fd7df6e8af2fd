import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { EMBEDDER, IngestCorpusUseCase, ValidationError, VECTOR_STORE, type Embedder, type VectorStore } from '@forensics/core';
import { CoreModule, InfrastructureModule, loadConfig } from '@forensics/infra';
import { readIngestJsonl } from './jsonl';
import { progressBar } from './progress';

const USAGE = `usage:
  npm run ingest -- --collection NAME FILE.jsonl    import {id?, text, metadata?} lines (idempotent by text hash)
  npm start                                        API + worker in one process on embedded defaults
environment: see README (DATABASE_URL, REDIS_URL, QDRANT_URL, EMBEDDER, JUDGE, …)`;

async function ingest(argv: string[]): Promise<void> {
  let collection: string | undefined;
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--collection' || argv[i] === '-c') collection = argv[++i];
    else if (argv[i].startsWith('--collection=')) collection = argv[i].slice('--collection='.length);
    else if (argv[i] === '--help' || argv[i] === '-h') { console.log(USAGE); return; }
    else files.push(argv[i]);
  }
  const config = loadConfig(process.env);
  collection ??= config.defaultCollection;
  if (files.length !== 1) throw new ValidationError(`expected exactly one JSONL file\n${USAGE}`);
  const records = await readIngestJsonl(files[0]);
  if (!records.length) throw new ValidationError(`${files[0]} holds no records`);
  // The same core and adapters as the service, without the queue (ingestion needs none).
  const app = await NestFactory.createApplicationContext(
    { module: class IngestModule {}, imports: [InfrastructureModule.forRoot(config, { queue: false }), CoreModule] },
    { logger: ['error', 'warn'] },
  );
  try {
    const bar = progressBar(`embedding into '${collection}'`);
    const t0 = Date.now();
    const r = await app.get(IngestCorpusUseCase).execute({
      collection, records, onProgress: (p) => bar.update(p.done, p.total, `(${p.skipped} already present)`),
    });
    bar.done();
    const embedder = app.get<Embedder>(EMBEDDER);
    const store = app.get<VectorStore>(VECTOR_STORE);
    console.log(JSON.stringify({ collection: r.collection, received: r.received, inserted: r.inserted, skipped: r.skipped, markersStripped: r.markersStripped, embedder: embedder.id, store: store.kind, seconds: +((Date.now() - t0) / 1000).toFixed(1) }));
  } finally {
    await app.close();
  }
}

async function serve(): Promise<void> {
  // API and worker in one process: the quickest way to run the service on one machine.
  const { createApiApp } = await import('../../api/src/create-api-app');
  const { WorkerModule } = await import('../../worker/src/worker.module');
  const config = loadConfig(process.env);
  // One infrastructure module shared by the API and the worker modules of this process.
  const infrastructure = InfrastructureModule.forRoot(config);
  const app = await createApiApp(config, { infrastructure, with: [WorkerModule.forRoot(config, infrastructure)] });
  await app.listen(config.port, config.host);
  console.log(`serving on ${await app.getUrl()} (docs at /docs)${config.devApiKey ? `; development API key '${config.apiKeys[0]}'` : ''}`);
  const stop = async () => { await app.close().catch(() => {}); process.exit(0); };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  if (cmd === 'ingest') return ingest(rest);
  if (cmd === 'serve' || cmd === undefined) return serve();
  console.error(USAGE);
  process.exit(2);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(e instanceof ValidationError ? 2 : 1);
});
