import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Put, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { z } from 'zod';
import {
  AUDIT_KINDS, AuditKindParam, CancelAuditRunUseCase, DeleteAuditScheduleUseCase, GetAuditRunUseCase, ListAuditFindingsUseCase, ListAuditRunsUseCase, ListAuditSchedulesUseCase,
  parseRequest, ScheduleAuditRequest, SetAuditScheduleUseCase, StartAuditRequest, StartAuditUseCase, type AuditKind, type AuditStatus,
} from '@forensics/core';
import { actorOf } from '../http/api-key.guard';
import { Allow } from '../http/auth';
import { ZodBody, ZodQuery } from '../http/zod-request';

const STATUSES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
const ListQuery = z.strictObject({
  kind: z.enum(AUDIT_KINDS as unknown as [AuditKind, ...AuditKind[]], { error: `kind must be one of ${AUDIT_KINDS.join(', ')}` }).optional().describe('only runs of this kind'),
  status: z.enum(STATUSES, { error: `status must be one of ${STATUSES.join(', ')}` }).optional().describe('only runs in this status'),
  collection: z.string().min(1).max(200).optional().describe('only runs of this collection'),
  limit: z.coerce.number({ error: 'limit must be a number' }).int({ error: 'limit must be an integer' }).min(1).max(200).optional().describe('page size (default 50, at most 200)'),
  before: z.string().max(100).optional().describe('the `next` of the previous page'),
});
const FindingsQuery = z.strictObject({
  limit: z.coerce.number({ error: 'limit must be a number' }).int().min(1).max(200).optional().describe('page size (default 100, at most 200)'),
  after: z.string().max(100).optional().describe('the `next` of the previous page'),
});
const CollectionQuery = z.strictObject({ collection: z.string().min(1).max(200).optional().describe('collection (default: the default collection)') });

/**
 * Database audits (issue 12): start one now, list and inspect runs (progress, counts) and their
 * findings (which link to review items by quarantine id), cancel, and manage schedules. Starting,
 * cancelling and scheduling need `manage`; reading needs `read`. Runs are executed by the worker.
 */
@ApiTags('audits')
@ApiSecurity('api-key')
@Controller('v1/audits')
export class AuditsController {
  constructor(
    @Inject(StartAuditUseCase) private readonly start: StartAuditUseCase,
    @Inject(ListAuditRunsUseCase) private readonly listRuns: ListAuditRunsUseCase,
    @Inject(GetAuditRunUseCase) private readonly getRun: GetAuditRunUseCase,
    @Inject(ListAuditFindingsUseCase) private readonly listFindings: ListAuditFindingsUseCase,
    @Inject(CancelAuditRunUseCase) private readonly cancelRun: CancelAuditRunUseCase,
    @Inject(ListAuditSchedulesUseCase) private readonly listSchedules: ListAuditSchedulesUseCase,
    @Inject(SetAuditScheduleUseCase) private readonly setSchedule: SetAuditScheduleUseCase,
    @Inject(DeleteAuditScheduleUseCase) private readonly deleteSchedule: DeleteAuditScheduleUseCase,
  ) {}

  @Post()
  @Allow('manage')
  @HttpCode(202)
  @ApiOperation({ summary: 'Start an audit run now (queued for the worker); returns the run' })
  @ZodBody(StartAuditRequest)
  async create(@Body() body: unknown, @Req() req: Request) {
    const b = parseRequest(StartAuditRequest, body ?? {});
    return this.start.execute({ kind: b.kind, collection: b.collection, params: b.params, trigger: 'api', actor: actorOf(req) });
  }

  @Get()
  @Allow('read')
  @ApiOperation({ summary: 'Audit runs, newest first (keyset pages: pass `next` as `before`)' })
  @ZodQuery(ListQuery)
  async list(@Query() query: unknown) {
    const q = parseRequest(ListQuery, query ?? {});
    return this.listRuns.execute({ kind: q.kind, status: q.status as AuditStatus | undefined, collection: q.collection, limit: q.limit, before: q.before });
  }

  @Get('schedules')
  @Allow('read')
  @ApiOperation({ summary: 'Scheduled audits (kind, collection, cron, next run)' })
  async schedules() {
    return { items: await this.listSchedules.execute() };
  }

  @Put('schedules/:kind')
  @Allow('manage')
  @ApiOperation({ summary: 'Create or replace the schedule of an audit kind for a collection (cron in UTC)' })
  @ZodBody(ScheduleAuditRequest)
  async schedule(@Param('kind') kind: string, @Body() body: unknown, @Req() req: Request) {
    const k = parseRequest(AuditKindParam, kind);
    const b = parseRequest(ScheduleAuditRequest, body ?? {});
    return this.setSchedule.execute({ kind: k, collection: b.collection, cron: b.cron, params: b.params, actor: actorOf(req) });
  }

  @Delete('schedules/:kind')
  @Allow('manage')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove the schedule of an audit kind for a collection' })
  @ZodQuery(CollectionQuery)
  async unschedule(@Param('kind') kind: string, @Query() query: unknown, @Req() req: Request) {
    const k = parseRequest(AuditKindParam, kind);
    const q = parseRequest(CollectionQuery, query ?? {});
    await this.deleteSchedule.execute({ kind: k, collection: q.collection, actor: actorOf(req) });
  }

  @Get(':id')
  @Allow('read')
  @ApiOperation({ summary: 'One audit run: status, progress, counts, who started it' })
  async get(@Param('id') id: string) {
    return this.getRun.execute({ id });
  }

  @Get(':id/findings')
  @Allow('read')
  @ApiOperation({ summary: 'Findings of a run (oldest first; quarantineIds link to review items)' })
  @ZodQuery(FindingsQuery)
  async findings(@Param('id') id: string, @Query() query: unknown) {
    const q = parseRequest(FindingsQuery, query ?? {});
    return this.listFindings.execute({ id, limit: q.limit, after: q.after });
  }

  @Post(':id/cancel')
  @Allow('manage')
  @ApiOperation({ summary: 'Cancel a run: a queued run at once, a running one at its next checkpoint' })
  async cancel(@Param('id') id: string, @Req() req: Request) {
    return this.cancelRun.execute({ id, actor: actorOf(req) });
  }
}
