/**
 * Seeds N realistic review items (quarantine records + their documents, feedback events, judge
 * verdicts with BiRD / GRADA / ProGRank evidence, audit entries) straight into Postgres with
 * multi-row INSERTs over unnest(arrays) — 100k items in well under a minute — so the review
 * console's queue can be timed at scale (issue 11).
 *
 *   npm run seed:review -- --items 100000 --data-dir DIR [--collection NAME] [--seed 1]
 *   npm run seed:review -- --items 5000 --database-url postgresql://…
 *
 * With --data-dir, the data dir's embedded Postgres is used (started if needed, migrations
 * applied), as `npm start` on that data dir would. The texts exist only in Postgres (no vectors):
 * enough for the queue, the item page (near-duplicates are then empty) and decisions; ingest
 * through the API for vector-backed items. Ends with one JSON line {"items","events","collection","ms"}.
 */
import { randomUUID, createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { mulberry32 } from '@forensics/algorithms';

export interface SeedOptions {
  items: number;
  collection: string;
  /** PRNG seed (deterministic content). */
  seed?: number;
  /** Items per feedback event (default 4). */
  perEvent?: number;
  /** Spread of createdAt back from now (days, default 30). */
  days?: number;
  /** Fixed state for every item (default: a realistic mix). */
  state?: 'NEEDS_REVIEW' | 'QUARANTINED' | 'RESTORED' | 'PURGED';
  onProgress?: (done: number) => void;
}

const SUBJECTS = ['the Eiffel Tower', 'Mount Everest', 'the Amazon river', 'the Great Wall', 'Marie Curie', 'the Apollo 11 mission', 'the Treaty of Versailles', 'the human heart', 'Jupiter', 'the Mona Lisa', 'photosynthesis', 'the Roman Empire'];
const FACTS = ['was completed in', 'is located in', 'was discovered by', 'is measured at', 'was written by', 'was signed in', 'has a diameter of', 'was painted by'];
const WRONG = ['Berlin', '1850', 'Isaac Newton', '12 km', 'Leonardo', 'Mars', 'Sydney', 'Charles Dickens', '42', 'the Nile'];
const RIGHT = ['Paris', '1889', 'Pierre Curie', '8849 m', 'Michelangelo', 'Venus', 'Canberra', 'Victor Hugo', '7', 'the Amazon'];
const STATES = ['QUARANTINED', 'QUARANTINED', 'QUARANTINED', 'NEEDS_REVIEW', 'NEEDS_REVIEW', 'QUARANTINED', 'RESTORED', 'QUARANTINED', 'NEEDS_REVIEW', 'PURGED'] as const;
const PURGED_TEXT = '[purged: text removed by an administrator]';

const BATCH = 5000;

/** Inserts the rows; returns what was created. Idempotent per run only (fresh ids every time). */
export async function seedReview(db: Client, opts: SeedOptions): Promise<{ items: number; events: number; ids: string[]; documentIds: string[]; feedbackIds: string[] }> {
  const rnd = mulberry32(opts.seed ?? 1);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const perEvent = Math.max(1, opts.perEvent ?? 4);
  const days = opts.days ?? 30;
  const now = Date.now();
  const ids: string[] = [];
  const documentIds: string[] = [];
  const feedbackIds: string[] = [];
  await db.query(`INSERT INTO "Collection" ("name", "embedder", "dimension") VALUES ($1, 'use-lite', 512) ON CONFLICT DO NOTHING`, [opts.collection]);

  for (let start = 0; start < opts.items; start += BATCH) {
    const n = Math.min(BATCH, opts.items - start);
    const doc = { id: [] as string[], hash: [] as string[], text: [] as string[], ext: [] as string[], status: [] as string[] };
    const ev = { id: [] as string[], query: [] as string[], wrong: [] as string[], right: [] as string[], at: [] as string[] };
    const ver = { id: [] as string[], fb: [] as string[], doc: [] as string[], label: [] as string[], judge: [] as string[], reply: [] as string[], ev: [] as string[], rank: [] as number[], score: [] as number[], at: [] as string[] };
    const rec = { id: [] as string[], doc: [] as string[], fb: [] as string[], reason: [] as string[], evidence: [] as string[], policy: [] as string[], state: [] as string[], sus: [] as (number | null)[], judge: [] as string[], at: [] as string[], served: [] as boolean[], resolvedBy: [] as (string | null)[], decision: [] as (string | null)[] };
    const audit = { actor: [] as string[], action: [] as string[], entity: [] as string[], details: [] as string[], at: [] as string[] };
    let event: { id: string; query: string; wrong: string; at: number } | null = null;
    for (let i = 0; i < n; i++) {
      const k = start + i;
      if (!event || k % perEvent === 0) {
        const subject = pick(SUBJECTS);
        const w = Math.floor(rnd() * WRONG.length);
        event = { id: randomUUID(), query: `where or when ${pick(FACTS)} ${subject} (#${k})`, wrong: WRONG[w], at: now - Math.floor(rnd() * days * 86_400_000) };
        feedbackIds.push(event.id);
        ev.id.push(event.id); ev.query.push(event.query); ev.wrong.push(event.wrong); ev.right.push(RIGHT[w]); ev.at.push(new Date(event.at).toISOString());
      }
      const state = opts.state ?? pick(STATES);
      const text = `${event.query.replace(/ \(#\d+\)$/, '')}. According to recent sources, ${pick(SUBJECTS)} ${pick(FACTS)} ${event.wrong}; experts confirm ${event.wrong} (item ${k}).`;
      const id = randomUUID();
      const docId = randomUUID();
      const hash = createHash('sha256').update(text).digest('hex');
      doc.id.push(docId); doc.hash.push(hash); doc.text.push(state === 'PURGED' ? PURGED_TEXT : text); doc.ext.push(`seed-${k}`);
      doc.status.push(state === 'RESTORED' ? 'ACTIVE' : state === 'PURGED' ? 'PURGED' : 'QUARANTINED');
      const birdS = rnd(); const gradaS = rnd();
      const available = rnd() > 0.08;
      const combined = available ? (birdS + gradaS) / 2 : 0;
      const evidence = {
        bird: { suspicion: birdS, forwardRank: 1 + Math.floor(rnd() * 5), contentRelevance: 0.5 + rnd() / 2, contextConsistency: rnd() * 2 - 1, commonSetSize: Math.floor(rnd() * 20), score: rnd() * 5, flagged: birdS > 0.6 },
        grada: { suspicion: gradaS, n: 10, score: rnd() / 10, rankBefore: 1 + Math.floor(rnd() * 5), rankAfter: 1 + Math.floor(rnd() * 10), keptInTopN: rnd() > 0.5, droppedFromTopN: rnd() > 0.7, m: 10 },
        progrank: { skipped: 'below the score gate', gateWeight: rnd() / 3 },
        combined: { suspicion: combined, agrees: combined >= 0.5, signals: combined >= 0.5 ? ['bird'] : [], present: available ? ['bird', 'grada'] : [], available },
        ms: { bird: 3, grada: 2, progrank: 0 },
      };
      const judge = rnd() > 0.3 ? 'offline' : 'openai';
      const label = state === 'NEEDS_REVIEW' && rnd() > 0.6 ? 'UNDETERMINED' : 'YES';
      const reply = label === 'YES' ? `The text asserts "${event.wrong}" as the answer. [Label: Yes]` : 'I cannot tell from the text.';
      const at = new Date(event.at + Math.floor(rnd() * 60_000)).toISOString();
      ver.id.push(randomUUID()); ver.fb.push(event.id); ver.doc.push(docId); ver.label.push(label); ver.judge.push(judge); ver.reply.push(reply);
      ver.ev.push(JSON.stringify(evidence)); ver.rank.push(1 + Math.floor(rnd() * 5)); ver.score.push(0.5 + rnd() / 2); ver.at.push(at);
      const policyEvidence = {
        policy: { name: 'judge-only', decision: state === 'NEEDS_REVIEW' ? 'NEEDS_REVIEW' : 'QUARANTINE', withhold: state !== 'NEEDS_REVIEW', reason: 'judge: tries to induce the wrong answer (judge-only policy)', inputs: { label, evidence: { available, suspicion: combined } } },
        judge: { kind: judge, model: judge === 'offline' ? 'offline-judge-v1' : 'gpt-4o-mini', promptVersion: 'rf-v1', label, reply, signals: null },
        retrieval: { rank: 1, score: 0.8 },
        retrieverEvidence: evidence,
      };
      const decided = state === 'RESTORED' || state === 'PURGED' || (state === 'QUARANTINED' && rnd() > 0.7);
      rec.id.push(id); rec.doc.push(docId); rec.fb.push(event.id); rec.reason.push(`judge YES — query "${event.query}", wrong answer "${event.wrong}"`);
      rec.evidence.push(JSON.stringify(policyEvidence)); rec.policy.push('judge-only'); rec.state.push(state); rec.sus.push(available ? combined : null); rec.judge.push(judge);
      rec.at.push(at); rec.served.push(state === 'NEEDS_REVIEW' && label === 'UNDETERMINED');
      rec.resolvedBy.push(decided ? 'user:seed-reviewer' : null);
      rec.decision.push(decided ? (state === 'RESTORED' ? 'restore' : state === 'PURGED' ? 'purge' : 'approve') : null);
      audit.actor.push('traceback-worker'); audit.action.push(state === 'NEEDS_REVIEW' ? 'review.requested' : 'quarantine.created'); audit.entity.push(id);
      audit.details.push(JSON.stringify({ documentId: docId, feedbackId: event.id, policy: 'judge-only', seeded: true })); audit.at.push(at);
      ids.push(id); documentIds.push(docId);
    }
    await db.query('BEGIN');
    try {
      await db.query(
        `INSERT INTO "Document" ("id", "collection", "externalId", "textHash", "text", "status", "createdAt", "updatedAt")
         SELECT d.id, $1, d.ext, d.hash, d.text, d.status::"DocumentStatus", now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[]) AS d(id, ext, hash, text, status)`,
        [opts.collection, doc.id, doc.ext, doc.hash, doc.text, doc.status],
      );
      if (ev.id.length) {
        await db.query(
          `INSERT INTO "FeedbackEvent" ("id", "collection", "query", "wrongAnswer", "correctAnswer", "servedIds", "reporter", "status", "step", "k", "createdAt", "updatedAt", "tracedAt")
           SELECT e.id, $1, e.q, e.w, e.r, '{}', 'seed', 'TRACED', 'verified', 5, e.at, e.at, e.at
           FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::timestamp[]) AS e(id, q, w, r, at)`,
          [opts.collection, ev.id, ev.query, ev.wrong, ev.right, ev.at],
        );
      }
      await db.query(
        `INSERT INTO "JudgeVerdict" ("id", "feedbackId", "documentId", "round", "label", "judgeKind", "judgeModel", "promptVersion", "reply", "latencyMs", "cacheKey", "evidence", "retrievalRank", "retrievalScore", "createdAt")
         SELECT v.id, v.fb, v.doc, 1, v.label::"VerdictLabel", v.judge, CASE WHEN v.judge = 'offline' THEN 'offline-judge-v1' ELSE 'gpt-4o-mini' END, 'rf-v1', v.reply, 12, md5(v.id::text), v.ev::jsonb, v.rank, v.score, v.at
         FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::float8[], $10::timestamp[]) AS v(id, fb, doc, label, judge, reply, ev, rank, score, at)`,
        [ver.id, ver.fb, ver.doc, ver.label, ver.judge, ver.reply, ver.ev, ver.rank, ver.score, ver.at],
      );
      await db.query(
        `INSERT INTO "QuarantineRecord" ("id", "documentId", "feedbackId", "collection", "reason", "evidence", "policy", "state", "storeSynced", "servedDuringReview", "createdBy", "createdAt",
                                         "resolvedBy", "resolvedAt", "suspicion", "judgeKind", "decision")
         SELECT r.id, r.doc, r.fb, $1, r.reason, r.ev::jsonb, r.policy, r.state::"QuarantineState", true, r.served, 'traceback-worker', r.at,
                r.rb, CASE WHEN r.rb IS NULL THEN NULL ELSE r.at + interval '1 hour' END, r.sus, r.judge, r.dec
         FROM unnest($2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::float8[], $10::text[], $11::timestamp[], $12::boolean[], $13::text[], $14::text[])
           AS r(id, doc, fb, reason, ev, policy, state, sus, judge, at, served, rb, dec)`,
        [opts.collection, rec.id, rec.doc, rec.fb, rec.reason, rec.evidence, rec.policy, rec.state, rec.sus, rec.judge, rec.at, rec.served, rec.resolvedBy, rec.decision],
      );
      await db.query(
        `INSERT INTO "AuditLog" ("actor", "action", "entityType", "entityId", "details", "at")
         SELECT a.actor, a.action, 'QuarantineRecord', a.entity, a.details::jsonb, a.at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamp[]) AS a(actor, action, entity, details, at)`,
        [audit.actor, audit.action, audit.entity, audit.details, audit.at],
      );
      await db.query('COMMIT');
    } catch (e) {
      await db.query('ROLLBACK');
      throw e;
    }
    opts.onProgress?.(start + n);
  }
  // Statistics and the visibility map (index-only counts) as autovacuum would leave them.
  for (const t of ['QuarantineRecord', 'Document', 'FeedbackEvent', 'JudgeVerdict']) await db.query(`VACUUM ANALYZE "${t}"`);
  return { items: ids.length, events: feedbackIds.length, ids, documentIds, feedbackIds };
}

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const items = Number(arg(args, 'items') ?? '1000');
  if (!Number.isInteger(items) || items < 1 || items > 2_000_000) throw new Error('--items must be an integer in [1, 2000000]');
  const collection = arg(args, 'collection') ?? 'default';
  let databaseUrl = arg(args, 'database-url') ?? process.env.DATABASE_URL;
  const root = resolve(__dirname, '..');
  const { startEmbeddedPostgres } = await import('../libs/infra/src/runtime/embedded-services');
  const { applyMigrations } = await import('../libs/infra/src/prisma/migrator');
  let stop: (() => Promise<void>) | null = null;
  if (!databaseUrl) {
    const dataDir = resolve(arg(args, 'data-dir') ?? process.env.DATA_DIR ?? join(root, '.data'));
    const pg = await startEmbeddedPostgres(dataDir, (m) => process.stderr.write(`${m}\n`));
    databaseUrl = pg.url;
    if (pg.owned) stop = () => pg.stop();
  }
  await applyMigrations(databaseUrl, join(root, 'prisma', 'migrations'), (m) => process.stderr.write(`${m}\n`));
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const t0 = Date.now();
  try {
    const r = await seedReview(db, { items, collection, seed: Number(arg(args, 'seed') ?? '1'), onProgress: (d) => process.stderr.write(`seeded ${d}/${items}\n`) });
    process.stdout.write(`${JSON.stringify({ items: r.items, events: r.events, collection, ms: Date.now() - t0 })}\n`);
  } finally {
    await db.end();
    await stop?.();
  }
}

if (require.main === module) {
  main().catch((e) => { process.stderr.write(`seed-review: ${e instanceof Error ? e.message : String(e)}\n`); process.exit(1); });
}
