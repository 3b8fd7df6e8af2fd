import type { DatabaseHealth } from '@forensics/core';
import type { PrismaClient } from '../generated/client';

/** Reachability of Postgres (health checks). */
export class PrismaDatabaseHealth implements DatabaseHealth {
  constructor(private readonly db: PrismaClient) {}

  async ping(): Promise<void> {
    await this.db.$queryRawUnsafe('SELECT 1');
  }
}
