import 'reflect-metadata';
import { userInfo } from 'node:os';
import { NestFactory } from '@nestjs/core';
import {
  AUDIT_KINDS, GetAuditRunUseCase, ListAuditFindingsUseCase, ListAuditRunsUseCase, RunAuditUseCase, StartAuditUseCase, ValidationError, type AuditKind, type AuditRunRow,
} from '@forensics/core';
import { CoreModule, InfrastructureModule, loadConfig, requireEmbeddedPrerequisites } from '@forensics/infra';
import { progressBar } from './progress';

const USAGE = `usage:
  npm run audit -- <kind> [--collection NAME] [--param key=value ...] [--queue]
  npm run audit -- list [--collection NAME]          recent runs: id, kind, status, counts
  npm run audit -- show RUN_ID                         one run and its findings (JSON)
kinds: ${AUDIT_KINDS.join(', ')}
By default the run executes here, in this process (a progress bar on stderr, then one JSON line with the
run's status, counts and findings summary); exit code 1 when it FAILED. --queue hands it to the worker
instead (needs Redis, i.e. the service running) and follows its progress until it finishes.
reconcile parameters: pageSize (points and documents per page and checkpoint, default 1000); register=true registers the
store points the registry does not know, as they stand (an attached store, before a vetted baseline can cover them).
environment: as for the service (DATABASE_URL unset = the embedded PostgreSQL in DATA_DIR, DEFAULT_COLLECTION, EMBEDDER, …)`;

interface Args { cmd: string; collection?: string; params: Record<string, string | number | boolean>; queue: boolean; positional: string[] }

function parseArgs(argv: string[]): Args {
  const [cmd = '', ...rest] = argv;
  const out: Args = { cmd, params: {}, queue: false, positional: [] };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const value = () => {
      const eq = a.indexOf('=');
      if (eq > 0 && a.startsWith('--')) return a.slice(eq + 1);
      const v = rest[++i];
      if (v === undefined || v.startsWith('--')) throw new ValidationError(`${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === '--queue') out.queue = true;
    else if (a === '--collection' || a.startsWith('--collection=')) out.collection = value();
    else if (a === '--param' || a.startsWith('--param=')) {
      const kv = value();
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new ValidationError(`--param needs key=value, got '${kv}'`);
      const raw = kv.slice(eq + 1);
      out.params[kv.slice(0, eq)] = raw === 'true' ? true : raw === 'false' ? false : Number.isFinite(Number(raw)) && raw.trim() !== '' ? Number(raw) : raw;
    } else if (a.startsWith('--')) throw new ValidationError(`unknown option ${a}\n${USAGE}`);
    else out.positional.push(a);
  }
  return out;
}

const summary = (r: AuditRunRow) => ({
  id: r.id, kind: r.kind, collection: r.collection, status: r.status, counts: r.counts, findings: r.findingsCount, error: r.error,
  seconds: r.finishedAt && r.startedAt ? +((r.finishedAt.getTime() - r.startedAt.getTime()) / 1000).toFixed(1) : null,
});

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (!args.cmd || ['--help', '-h', 'help'].includes(args.cmd)) { console.log(USAGE); return; }
  const isKind = (AUDIT_KINDS as readonly string[]).includes(args.cmd);
  if (!isKind && !['list', 'show'].includes(args.cmd)) throw new ValidationError(`unknown audit kind or command '${args.cmd}'\n${USAGE}`);
  const config = loadConfig(process.env);
  if (args.queue) requireEmbeddedPrerequisites(config);
  const app = await NestFactory.createApplicationContext(
    { module: class AuditCliModule {}, imports: [InfrastructureModule.forRoot(config, { queue: args.queue }), CoreModule] },
    { logger: ['error', 'warn'] },
  );
  try {
    if (args.cmd === 'list') {
      const { items } = await app.get(ListAuditRunsUseCase).execute({ collection: args.collection, limit: 20 });
      for (const r of items) console.log(JSON.stringify(summary(r)));
      return;
    }
    if (args.cmd === 'show') {
      const id = args.positional[0];
      if (!id) throw new ValidationError(`show needs a run id\n${USAGE}`);
      const run = await app.get(GetAuditRunUseCase).execute({ id });
      const findings = await app.get(ListAuditFindingsUseCase).execute({ id, limit: 200 });
      console.log(JSON.stringify({ ...run, findings: findings.items }, null, 2));
      return;
    }
    const actor = `cli:${userInfo().username}`;
    const run = await app.get(StartAuditUseCase).execute({
      kind: args.cmd as AuditKind, collection: args.collection, params: args.params, trigger: 'cli', actor, enqueue: args.queue,
    });
    const bar = progressBar(`${run.kind} '${run.collection}'`);
    let final: AuditRunRow;
    if (args.queue) {
      console.error(`queued run ${run.id}; following its progress (Ctrl-C stops following, not the run)`);
      const get = app.get(GetAuditRunUseCase);
      for (;;) {
        const r = await get.execute({ id: run.id });
        bar.update(r.progress.done, r.progress.total ?? r.progress.done, r.progress.phase ?? r.status);
        if (['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(r.status)) { final = r; break; }
        await new Promise((res) => setTimeout(res, 1000));
      }
    } else {
      const runner = app.get(RunAuditUseCase);
      const poll = setInterval(() => {
        void app.get(GetAuditRunUseCase).execute({ id: run.id }).then((r) => bar.update(r.progress.done, r.progress.total ?? r.progress.done, r.progress.phase ?? ''), () => {});
      }, 500);
      try {
        const out = await runner.execute({ runId: run.id, isFinalAttempt: true, log: (m) => process.stderr.write(`\n${m}\n`) });
        final = out?.run ?? (await app.get(GetAuditRunUseCase).execute({ id: run.id }));
      } finally {
        clearInterval(poll);
      }
      bar.update(final.progress.done, final.progress.total ?? final.progress.done, final.progress.phase ?? '');
    }
    bar.done();
    const findings = await app.get(ListAuditFindingsUseCase).execute({ id: run.id, limit: 200 });
    const byType: Record<string, number> = {};
    for (const f of findings.items) byType[`${f.type}:${f.action}`] = (byType[`${f.type}:${f.action}`] ?? 0) + 1;
    console.log(JSON.stringify({ ...summary(final), findingsByType: byType }));
    if (final.status === 'FAILED') process.exitCode = 1;
  } finally {
    await app.close();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(e instanceof ValidationError ? 2 : 1);
});
