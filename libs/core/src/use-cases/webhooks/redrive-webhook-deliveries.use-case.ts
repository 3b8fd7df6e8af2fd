import { WEBHOOK_DISPATCHER, WEBHOOKS, type PendingCursor, type WebhookDispatcher, type WebhookRepository } from '../../ports/repositories/webhook.port';
import type { Clock } from '../../ports/runtime.port';
import { CLOCK } from '../../ports/tokens';
import type { InjectMap } from '../../use-case';

export interface RedriveWebhookDeliveriesDeps { webhooks: WebhookRepository; dispatcher: WebhookDispatcher; clock: Clock }

/**
 * The outbox sweep (run by the worker's job scheduler): every PENDING delivery older than the
 * grace period with no live job gets one — rows written while Redis was unreachable, or whose job
 * was lost. A live job (waiting, delayed, active) is left alone, so running it often is harmless.
 *
 * Each run looks at `limit` rows and the next run continues after the last one, wrapping to the
 * oldest when it reaches the end: with more than `limit` rows waiting on live retries (an endpoint
 * down for a while), a row that never got a job is still reached within a few runs instead of
 * starving behind them (seen in CI, where many endpoints' retries shared one database).
 */
export class RedriveWebhookDeliveriesUseCase {
  static readonly inject: InjectMap<RedriveWebhookDeliveriesDeps> = { webhooks: WEBHOOKS, dispatcher: WEBHOOK_DISPATCHER, clock: CLOCK };
  private cursor: PendingCursor | null = null;
  constructor(private readonly deps: RedriveWebhookDeliveriesDeps) {}

  async execute(cmd: { graceMs: number; limit?: number }): Promise<{ added: string[]; live: number; errors: number; wrapped: boolean }> {
    const limit = cmd.limit ?? 500;
    const pending = await this.deps.webhooks.listPending(new Date(this.deps.clock.now().getTime() - cmd.graceMs), limit, this.cursor);
    const last = pending.at(-1);
    const wrapped = pending.length < limit;
    this.cursor = wrapped || !last ? null : { createdAt: last.createdAt, id: last.id };
    const out = { added: [] as string[], live: 0, errors: 0, wrapped };
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
