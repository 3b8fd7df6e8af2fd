import { WEBHOOK_DISPATCHER, WEBHOOKS, type WebhookDispatcher, type WebhookRepository } from '../../ports/repositories/webhook.port';
import type { Clock } from '../../ports/runtime.port';
import { CLOCK } from '../../ports/tokens';
import type { InjectMap } from '../../use-case';

export interface RedriveWebhookDeliveriesDeps { webhooks: WebhookRepository; dispatcher: WebhookDispatcher; clock: Clock }

/**
 * The outbox sweep (run by the worker's job scheduler): every PENDING delivery older than the
 * grace period with no live job gets one — rows written while Redis was unreachable, or whose job
 * was lost. A live job (waiting, delayed, active) is left alone, so running it often is harmless.
 */
export class RedriveWebhookDeliveriesUseCase {
  static readonly inject: InjectMap<RedriveWebhookDeliveriesDeps> = { webhooks: WEBHOOKS, dispatcher: WEBHOOK_DISPATCHER, clock: CLOCK };
  constructor(private readonly deps: RedriveWebhookDeliveriesDeps) {}

  async execute(cmd: { graceMs: number; limit?: number }): Promise<{ added: string[]; live: number; errors: number }> {
    const pending = await this.deps.webhooks.listPending(new Date(this.deps.clock.now().getTime() - cmd.graceMs), cmd.limit ?? 500);
    const out = { added: [] as string[], live: 0, errors: 0 };
    for (const d of pending) {
      try {
        if ((await this.deps.dispatcher.redrive(d.id)) === 'added') out.added.push(d.id);
        else out.live++;
      } catch {
        out.errors++;
      }
    }
    return out;
  }
}
