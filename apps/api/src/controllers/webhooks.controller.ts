import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import {
  CreateWebhookRequest, CreateWebhookUseCase, DeleteWebhookUseCase, GetWebhookUseCase, ListWebhookDeliveriesQuery, ListWebhookDeliveriesUseCase, ListWebhooksUseCase,
  parseRequest, PingWebhookUseCase, RedeliverWebhookUseCase, RotateWebhookSecretUseCase, UpdateWebhookRequest, UpdateWebhookUseCase,
} from '@forensics/core';
import { actorOf } from '../http/api-key.guard';
import { Allow } from '../http/auth';
import { ZodBody, ZodQuery } from '../http/zod-request';

/**
 * Webhook subscriptions (issue 14), admins only (`manage`): register an endpoint (the signing
 * secret is in the 201 response and never again), list / show (no secrets), change, re-enable,
 * delete, rotate the secret, send a test ping, read the delivery log. Deliveries themselves are made by the worker.
 */
@ApiTags('webhooks')
@ApiSecurity('api-key')
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(
    @Inject(CreateWebhookUseCase) private readonly create: CreateWebhookUseCase,
    @Inject(ListWebhooksUseCase) private readonly listAll: ListWebhooksUseCase,
    @Inject(GetWebhookUseCase) private readonly getOne: GetWebhookUseCase,
    @Inject(UpdateWebhookUseCase) private readonly update: UpdateWebhookUseCase,
    @Inject(DeleteWebhookUseCase) private readonly remove: DeleteWebhookUseCase,
    @Inject(RotateWebhookSecretUseCase) private readonly rotate: RotateWebhookSecretUseCase,
    @Inject(ListWebhookDeliveriesUseCase) private readonly deliveries: ListWebhookDeliveriesUseCase,
    @Inject(PingWebhookUseCase) private readonly ping: PingWebhookUseCase,
    @Inject(RedeliverWebhookUseCase) private readonly redeliver: RedeliverWebhookUseCase,
  ) {}

  @Post()
  @Allow('manage')
  @HttpCode(201)
  @ApiOperation({ summary: 'Register a webhook endpoint; the response carries its signing secret (shown once)' })
  @ZodBody(CreateWebhookRequest)
  async register(@Body() body: unknown, @Req() req: Request) {
    const b = parseRequest(CreateWebhookRequest, body ?? {});
    const { endpoint, secret } = await this.create.execute({ url: b.url, events: b.events, description: b.description, actor: actorOf(req) });
    return { ...endpoint, secret };
  }

  @Get()
  @Allow('manage')
  @ApiOperation({ summary: 'List webhook endpoints (no secrets)' })
  async list() {
    return { items: await this.listAll.execute() };
  }

  @Get(':id')
  @Allow('manage')
  @ApiOperation({ summary: 'One webhook endpoint (no secret): state, disabled reason, consecutive failures' })
  async get(@Param('id') id: string) {
    return this.getOne.execute({ id });
  }

  @Patch(':id')
  @Allow('manage')
  @ApiOperation({ summary: 'Change url, events, description or active (active: true re-enables and resets the failure count)' })
  @ZodBody(UpdateWebhookRequest)
  async change(@Param('id') id: string, @Body() body: unknown, @Req() req: Request) {
    const b = parseRequest(UpdateWebhookRequest, body ?? {});
    return this.update.execute({ id, ...b, actor: actorOf(req) });
  }

  @Delete(':id')
  @Allow('manage')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook endpoint and its delivery log (audited)' })
  async delete(@Param('id') id: string, @Req() req: Request) {
    await this.remove.execute({ id, actor: actorOf(req) });
  }

  @Post(':id/rotate-secret')
  @Allow('manage')
  @HttpCode(200)
  @ApiOperation({ summary: 'Replace the signing secret (the old one stops working at once); the new one is shown once' })
  async rotateSecret(@Param('id') id: string, @Req() req: Request) {
    return this.rotate.execute({ id, actor: actorOf(req) });
  }

  @Post(':id/test')
  @Allow('manage')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a signed ping now ({type: "ping"}) and show what the receiver answered (not queued, not retried, not counted)' })
  async test(@Param('id') id: string) {
    return this.ping.execute({ id });
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @Allow('manage')
  @HttpCode(202)
  @ApiOperation({ summary: 'Re-drive a FAILED or DEAD delivery after fixing the receiver: PENDING again with a fresh set of attempts (idempotent; the endpoint must be active)' })
  async redeliverOne(@Param('id') id: string, @Param('deliveryId') deliveryId: string, @Req() req: Request) {
    return this.redeliver.execute({ id, deliveryId, actor: actorOf(req) });
  }

  @Get(':id/deliveries')
  @Allow('manage')
  @ApiOperation({ summary: 'Delivery log, newest first: every attempt with outcome, status code, error and duration' })
  @ZodQuery(ListWebhookDeliveriesQuery)
  async listDeliveries(@Param('id') id: string, @Query() query: unknown) {
    const q = parseRequest(ListWebhookDeliveriesQuery, query ?? {});
    return this.deliveries.execute({ id, limit: q.limit, cursor: q.cursor });
  }
}
