import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export { PrismaClient };
export type { Prisma } from './generated/client';

/** Prisma 7 client over the node-postgres driver adapter (no native query engine). */
export function createPrismaClient(databaseUrl: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 10 }) });
}
