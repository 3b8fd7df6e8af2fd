import pg from 'pg';
import type { PrismaClient } from './generated/client';

/**
 * SQL with bound parameters, rows back: what the intake's batched statements need
 * (batching-repositories.ts), straight through node-postgres on the pool the Prisma client itself
 * runs on (Prisma's raw-query path converted every value of every returned row in its own layer —
 * ~11% of the API's CPU under bench:intake).
 */
export interface SqlClient {
  query<Row>(sql: string, params: readonly unknown[]): Promise<Row[]>;
}

/** The pool behind each Prisma client createPrismaClient made. */
const pools = new WeakMap<PrismaClient, pg.Pool>();

export function registerPool(client: PrismaClient, pool: pg.Pool): void {
  pools.set(client, pool);
}

const TIMESTAMP_OID = 1114;
const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/;
/**
 * The schema's DateTime columns are `timestamp(3)` without time zone, holding UTC (as Prisma writes
 * and reads them); node-postgres would read them in the process's local time zone.
 */
const UTC_TYPES = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') => {
    const dflt = pg.types.getTypeParser(oid, format as 'text');
    if (oid !== TIMESTAMP_OID) return dflt;
    return (v: string) => (TIMESTAMP.test(v) ? new Date(`${v.replace(' ', 'T')}Z`) : dflt(v));
  },
};

/** The SQL client of a Prisma client made by createPrismaClient (the only place the service makes one): its own pool. */
export function sqlClientOf(db: PrismaClient): SqlClient {
  const pool = pools.get(db);
  if (!pool) throw new Error('sqlClientOf: this Prisma client was not made by createPrismaClient, so its pool is unknown');
  return { query: async <Row>(sql: string, params: readonly unknown[]) => (await pool.query({ text: sql, values: [...params], types: UTC_TYPES } as pg.QueryConfig)).rows as Row[] };
}
