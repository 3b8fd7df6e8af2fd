import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/client';
import { registerPool } from './sql-client';

export { PrismaClient };
export type { Prisma } from './generated/client';

/**
 * Prisma 7 client over the node-postgres driver adapter (no native query engine). Interactive
 * transactions wait up to 10 s for a pooled connection (Prisma's default, 2 s, was exceeded in the
 * demo while the worker's traceback, webhook deliveries and the reconciler shared the 10 connections:
 * one traceback attempt failed with P2028 "Unable to start a transaction in the given time").
 */
export function createPrismaClient(databaseUrl: string): PrismaClient {
  // The pool is ours so the intake's batched SQL can use it directly (sql-client.ts); Prisma ends it on $disconnect.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const client = new PrismaClient({
    adapter: new PrismaPg(pool, { disposeExternalPool: true }),
    transactionOptions: { maxWait: 10_000, timeout: 15_000 },
  });
  registerPool(client, pool);
  return client;
}
