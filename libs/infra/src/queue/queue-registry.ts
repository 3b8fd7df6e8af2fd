import { Inject, Injectable } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { Queue } from 'bullmq';

/**
 * Every BullMQ queue registered in the Nest container (BullModule.registerQueue: traceback,
 * maintenance, webhooks, and any queue added later), discovered instead of listed: the metrics,
 * the dead letters and the queue dashboard see a new queue without anyone updating a list.
 * One instance per queue name (a process that composes API and worker shares one container).
 */
@Injectable()
export class QueueRegistry {
  constructor(@Inject(DiscoveryService) private readonly discovery: DiscoveryService) {}

  /** The queues, sorted by name. Call after the module is built (providers are resolved by then). */
  all(): Queue[] {
    const byName = new Map<string, Queue>();
    for (const wrapper of this.discovery.getProviders()) {
      let instance: unknown;
      try { instance = wrapper.isDependencyTreeStatic() ? wrapper.instance : undefined; } catch { instance = undefined; }
      if (instance instanceof Queue && !byName.has(instance.name)) byName.set(instance.name, instance);
    }
    return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): Queue | undefined {
    return this.all().find((q) => q.name === name);
  }
}
