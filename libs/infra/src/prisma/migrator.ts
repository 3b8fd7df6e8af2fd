import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

/**
 * Applies `prisma/migrations/<name>/migration.sql` in order, recording them in Prisma's own
 * `_prisma_migrations` table (same columns, sha256 checksums), so `prisma migrate deploy` and this
 * runner agree about what is applied. Why our own runner: Prisma's migrate engine is a native binary
 * downloaded at install time, which offline machines cannot fetch; the SQL is plain Postgres.
 *
 * Safe with several processes starting at once: a Postgres advisory lock serialises them.
 * A migration whose checksum changed after it was applied is an error (never silently re-run).
 */
export async function applyMigrations(databaseUrl: string, migrationsDir: string, log: (m: string) => void = () => {}): Promise<string[]> {
  if (!existsSync(migrationsDir)) throw new Error(`migrations folder not found: ${migrationsDir}`);
  const names = readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(migrationsDir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort();
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock(727274)');
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"',
    );
    const done = new Map(rows.filter((r) => r.finished_at && !r.rolled_back_at).map((r) => [r.migration_name, r.checksum]));
    for (const name of names) {
      const sql = readFileSync(join(migrationsDir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const prior = done.get(name);
      if (prior) {
        if (prior !== checksum) throw new Error(`migration ${name} was modified after it was applied (checksum mismatch)`);
        continue;
      }
      const id = randomUUID();
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES ($1, $2, now(), $3, 1)',
          [id, checksum, name],
        );
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${name} failed: ${(e as Error).message}`);
      }
      log(`applied migration ${name}`);
      applied.push(name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(727274)').catch(() => {});
    await client.end();
  }
  return applied;
}
