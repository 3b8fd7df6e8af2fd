import { Body, Controller, Delete, ForbiddenException, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  ApproveQuarantineUseCase, assertStorable, BulkReviewUseCase, ClaimReviewItemUseCase, ExportReviewUseCase, GetReviewEventUseCase, GetReviewItemUseCase,
  ListAuditLogUseCase, ListReviewEventsUseCase, ListReviewItemsUseCase, parseRequest, PurgeQuarantineUseCase, RestoreQuarantineUseCase, REVIEW,
  ReviewAuditQuery, ReviewBulkRequest, ReviewDecisionRequest, ReviewEventsQuery, ReviewExportQuery, ReviewListQuery, itemSummary,
  NextReviewItemUseCase, ReviewNextQuery, ReviewProgressQuery, ReviewProgressUseCase, ReviewReasonsUseCase, ReviewUndoRequest, UndoReviewDecisionUseCase,
  RedactReviewItemUseCase, ReviewRedactRequest,
  type Decider, type ReviewRepository,
} from '@forensics/core';
import { actorOf, Allow, principalOf } from '../http/auth';
import { ZodBody, ZodQuery } from '../http/zod-request';

/**
 * The review console's JSON API (issue 11; docs/review-api.md): the queue with filters and keyset
 * pagination, one item with everything needed to decide it, claims, decisions (approve / restore /
 * purge), bulk decisions, events, the audit log and exports. Thin: each endpoint validates with its
 * schema (in the use case) and calls one use case.
 */
@ApiTags('review')
@ApiSecurity('api-key')
@Controller('v1/review')
export class ReviewController {
  constructor(
    @Inject(ListReviewItemsUseCase) private readonly listItems: ListReviewItemsUseCase,
    @Inject(GetReviewItemUseCase) private readonly getItem: GetReviewItemUseCase,
    @Inject(ClaimReviewItemUseCase) private readonly claims: ClaimReviewItemUseCase,
    @Inject(ApproveQuarantineUseCase) private readonly approve: ApproveQuarantineUseCase,
    @Inject(RestoreQuarantineUseCase) private readonly restore: RestoreQuarantineUseCase,
    @Inject(PurgeQuarantineUseCase) private readonly purge: PurgeQuarantineUseCase,
    @Inject(BulkReviewUseCase) private readonly bulk: BulkReviewUseCase,
    @Inject(ListReviewEventsUseCase) private readonly listEvents: ListReviewEventsUseCase,
    @Inject(GetReviewEventUseCase) private readonly getEvent: GetReviewEventUseCase,
    @Inject(ListAuditLogUseCase) private readonly audit: ListAuditLogUseCase,
    @Inject(ExportReviewUseCase) private readonly exporter: ExportReviewUseCase,
    @Inject(REVIEW) private readonly review: ReviewRepository,
    @Inject(ReviewReasonsUseCase) private readonly reasons: ReviewReasonsUseCase,
    @Inject(UndoReviewDecisionUseCase) private readonly undoer: UndoReviewDecisionUseCase,
    @Inject(ReviewProgressUseCase) private readonly progressOf: ReviewProgressUseCase,
    @Inject(NextReviewItemUseCase) private readonly nextOf: NextReviewItemUseCase,
    @Inject(RedactReviewItemUseCase) private readonly redactor: RedactReviewItemUseCase,
  ) {}

  /** The decider of a request: audit actor (user + key id), claim holder name, and whether they may override claims (admins). */
  private decider(req: Request): Decider {
    const p = principalOf(req);
    return { actor: actorOf(req), claimant: p?.name ?? actorOf(req), override: p?.role === 'admin' };
  }

  @Get('items')
  @Allow('read')
  @ApiOperation({ summary: 'The review queue: filters, sort by risk or age, keyset pagination (nextCursor), counts per state, total' })
  @ZodQuery(ReviewListQuery)
  async items(@Query() query: unknown) {
    return this.listItems.execute(query);
  }

  @Get('items/:id')
  @Allow('read')
  @ApiOperation({ summary: 'One item: full text, report, verdict and reply, evidence of the event\'s candidates, policy, siblings, near-duplicates, history, earlier decisions' })
  async item(@Param('id') id: string) {
    assertStorable('id', id);
    return this.getItem.execute({ id });
  }

  @Post('items/:id/claim')
  @Allow('decide')
  @HttpCode(200)
  @ApiOperation({ summary: 'Claim (or renew) the item for REVIEW_CLAIM_TTL_SEC; 409 {message, claim} when someone else holds it' })
  async claim(@Param('id') id: string, @Req() req: Request) {
    assertStorable('id', id);
    return this.claims.execute({ id, by: this.decider(req).claimant! });
  }

  @Delete('items/:id/claim')
  @Allow('decide')
  @HttpCode(200)
  @ApiOperation({ summary: 'Release your claim on the item' })
  async release(@Param('id') id: string, @Req() req: Request) {
    assertStorable('id', id);
    return this.claims.execute({ id, by: this.decider(req).claimant!, release: true });
  }

  @Post('items/:id/decision')
  @Allow('decide', 'purge')
  @HttpCode(200)
  @ApiOperation({ summary: 'approve | restore (decide) or purge (purge permission; confirm = the documentId); 409 when another reviewer holds the claim (admins override)' })
  @ZodBody(ReviewDecisionRequest)
  async decide(@Param('id') id: string, @Body() body: unknown, @Req() req: Request) {
    assertStorable('id', id);
    const b = parseRequest(ReviewDecisionRequest, body ?? {});
    const p = principalOf(req);
    const needed = b.action === 'purge' ? 'purge' : 'decide';
    if (!p?.permissions.has(needed)) throw new ForbiddenException(`${b.action} needs the ${needed} permission, which ${p?.name ?? 'this caller'} does not have`);
    const who = { ...this.decider(req), quarantineId: id, note: b.note, reasons: this.reasons.check(b.reasons) };
    if (b.action === 'approve') await this.approve.execute(who);
    else if (b.action === 'restore') await this.restore.execute(who);
    else await this.purge.execute({ ...who, confirm: b.confirm });
    const [row] = await this.review.summaries([id]);
    return itemSummary(row);
  }

  @Post('items/:id/redact')
  @Allow('decide')
  @HttpCode(200)
  @ApiOperation({ summary: "Redact the claim span(s) instead of quarantining the text: the redacted version (spans → '[…]') is embedded and served as a new document, the original kept out of serving until purged; default spans = the judge's stored claim spans; restore reverses it. → {item, redaction, changed}" })
  @ZodBody(ReviewRedactRequest)
  async redact(@Param('id') id: string, @Body() body: unknown, @Req() req: Request) {
    assertStorable('id', id);
    const b = parseRequest(ReviewRedactRequest, body ?? {});
    return this.redactor.execute(id, b, { ...this.decider(req), reasons: this.reasons.check(b.reasons) });
  }

  @Get('reasons')
  @Allow('read')
  @ApiOperation({ summary: 'The configured reason labels of decisions (REVIEW_REASONS): key, label, keyboard shortcut (1–9)' })
  reasonLabels() {
    return this.reasons.list();
  }

  @Get('progress')
  @Allow('read')
  @ApiOperation({ summary: 'Progress for the list filters: decided by me and by the team since `since` (default midnight UTC), undecided items left, and left that I can decide' })
  @ZodQuery(ReviewProgressQuery)
  async progress(@Query() query: unknown, @Req() req: Request) {
    return this.progressOf.execute(query, this.decider(req).claimant!);
  }

  @Get('next')
  @Allow('read')
  @ApiOperation({ summary: 'The next item I can decide after `after` in the queue order (undecided, not claimed by someone else; wraps once): {item | null}' })
  @ZodQuery(ReviewNextQuery)
  async next(@Query() query: unknown, @Req() req: Request) {
    return this.nextOf.execute(query, this.decider(req).claimant!);
  }

  @Post('undo')
  @Allow('decide')
  @HttpCode(200)
  @ApiOperation({ summary: 'Undo my last approve / restore (of `id` if given): audited as review.undone; 409 when someone decided the item since, 404 when nothing is left to undo' })
  @ZodBody(ReviewUndoRequest)
  async undo(@Body() body: unknown, @Req() req: Request) {
    const d = this.decider(req);
    return this.undoer.execute(body ?? {}, { principal: d.claimant!, actor: d.actor });
  }

  @Post('bulk')
  @Allow('decide')
  @HttpCode(200)
  @ApiOperation({ summary: 'Approve or restore ids or everything matching a filter (server-side); idempotent by requestId → {requestId, matched, changed, skipped}' })
  @ZodBody(ReviewBulkRequest)
  async bulkDecide(@Body() body: unknown, @Req() req: Request) {
    const b = parseRequest(ReviewBulkRequest, body ?? {});
    return this.bulk.execute(b, { ...this.decider(req), reasons: this.reasons.check(b.reasons) });
  }

  @Get('events')
  @Allow('read')
  @ApiOperation({ summary: 'Feedback events, newest first: status, step, verification, verdict counts, items per state, enhancements' })
  @ZodQuery(ReviewEventsQuery)
  async events(@Query() query: unknown) {
    return this.listEvents.execute(query);
  }

  @Get('events/:id')
  @Allow('read')
  @ApiOperation({ summary: 'One feedback event and its items' })
  async event(@Param('id') id: string) {
    assertStorable('id', id);
    return this.getEvent.execute({ id });
  }

  @Get('audit-log')
  @Allow('read')
  @ApiOperation({ summary: 'The audit log, newest first: filter by actor, action, entityId, text, dates' })
  @ZodQuery(ReviewAuditQuery)
  async auditLog(@Query() query: unknown) {
    return this.audit.execute(query);
  }

  @Get('export')
  @Allow('read')
  @ApiOperation({ summary: 'Export the queue or the decisions as CSV (formula-safe) or JSONL, streamed' })
  @ZodQuery(ReviewExportQuery)
  async export(@Query() query: unknown, @Res() res: Response) {
    const out = this.exporter.execute(query);
    res.status(200);
    res.setHeader('content-type', out.contentType);
    res.setHeader('content-disposition', `attachment; filename="${out.filename}"`);
    res.setHeader('x-content-type-options', 'nosniff');
    try {
      for await (const line of out.lines) {
        if (!res.write(line)) await new Promise<void>((resolve) => res.once('drain', () => resolve()));
      }
    } catch (e) {
      // Headers are sent: abort the response (the client sees a broken transfer, never a file that looks complete).
      res.destroy(e as Error);
      return;
    }
    res.end();
  }
}
