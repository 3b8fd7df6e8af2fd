/**
 * Graceful shutdown order (issue 14): closing the worker app closes the BullMQ worker (active jobs
 * finish) before the infrastructure disconnects Postgres and Redis (both are onApplicationShutdown
 * hooks of global modules: this pins the order the README documents).
 */
import { WorkerHost } from '@nestjs/bullmq';
import { TracebackProcessor } from '../apps/worker/src/processors/traceback.processor';
import { createTestApp } from './support/test-app';

describe('graceful shutdown', () => {
  it('closes the queue worker before Postgres', async () => {
    const t = await createTestApp({ worker: true });
    const order: string[] = [];
    // The processor is a per-configuration subclass: found among the app's providers.
    let host: WorkerHost | undefined;
    for (const m of ((t.app as any).container.getModules() as Map<string, any>).values()) {
      for (const w of m.providers.values()) if (w.instance instanceof TracebackProcessor) host = w.instance;
    }
    const worker = host!.worker;
    const closeWorker = worker.close.bind(worker);
    worker.close = async (...args: Parameters<typeof worker.close>) => { order.push('worker.close'); return closeWorker(...args); };
    const disconnect = t.prisma.$disconnect.bind(t.prisma);
    (t.prisma as any).$disconnect = async () => { order.push('postgres.disconnect'); return disconnect(); };
    await t.close();
    expect(order[0]).toBe('worker.close');
    expect(order).toContain('postgres.disconnect');
  });
});
