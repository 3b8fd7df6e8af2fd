import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import {
  assertStorable, CreateApiKeyRequest, CreateApiKeyUseCase, CreateUserRequest, CreateUserUseCase, DisableUserUseCase, ListApiKeysUseCase, ListUsersUseCase,
  RevokeApiKeyUseCase,
} from '@forensics/core';
import { actorOf, Allow } from '../http/auth';
import { ZodBody } from '../http/zod-request';

/**
 * Users and API keys (admins only: `manage`). A created key is in the response once and never again
 * (only its keyed hash is stored); lists show the visible prefix.
 */
@ApiTags('admin')
@ApiSecurity('api-key')
@Controller('v1/admin')
export class AdminController {
  constructor(
    @Inject(CreateUserUseCase) private readonly createUser: CreateUserUseCase,
    @Inject(ListUsersUseCase) private readonly listUsers: ListUsersUseCase,
    @Inject(DisableUserUseCase) private readonly disableUser: DisableUserUseCase,
    @Inject(CreateApiKeyUseCase) private readonly createKey: CreateApiKeyUseCase,
    @Inject(ListApiKeysUseCase) private readonly listKeys: ListApiKeysUseCase,
    @Inject(RevokeApiKeyUseCase) private readonly revokeKey: RevokeApiKeyUseCase,
  ) {}

  @Get('users')
  @Allow('manage')
  @ApiOperation({ summary: 'List users (name, role, created, disabled)' })
  async users() {
    return { items: await this.listUsers.execute() };
  }

  @Post('users')
  @Allow('manage')
  @ApiOperation({ summary: 'Create a user {name, role}; a key for them: POST /v1/admin/keys {name, role}' })
  @ZodBody(CreateUserRequest)
  async addUser(@Body() body: unknown, @Req() req: Request) {
    return this.createUser.execute({ body: body ?? {}, actor: actorOf(req) });
  }

  @Post('users/:id/disable')
  @Allow('manage')
  @HttpCode(200)
  @ApiOperation({ summary: "Disable a user (by id or name): their keys and sessions stop working at once" })
  async disable(@Param('id') id: string, @Req() req: Request) {
    assertStorable('id', id);
    return this.disableUser.execute({ ref: id, actor: actorOf(req) });
  }

  @Get('keys')
  @Allow('manage')
  @ApiOperation({ summary: 'List API keys (prefix, owner, role or scopes, created / last used / revoked); never the key' })
  @ApiQuery({ name: 'includeRevoked', required: false, schema: { type: 'boolean', default: true } })
  async keys(@Query('includeRevoked') includeRevoked?: string) {
    return { items: await this.listKeys.execute({ includeRevoked: includeRevoked !== 'false' }) };
  }

  @Post('keys')
  @Allow('manage')
  @ApiOperation({ summary: "Create a key: {name, role} (a user's key; the user is created when new) or {name, scopes} (a service key). The key is returned once." })
  @ZodBody(CreateApiKeyRequest)
  async addKey(@Body() body: unknown, @Req() req: Request) {
    const { key, record } = await this.createKey.execute({ body: body ?? {}, actor: actorOf(req) });
    return { ...record, key };
  }

  @Post('keys/:id/revoke')
  @Allow('manage')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke a key (by id or prefix): it is refused (401) from the next request on; audited' })
  async revoke(@Param('id') id: string, @Req() req: Request) {
    assertStorable('id', id);
    return this.revokeKey.execute({ ref: id, actor: actorOf(req) });
  }
}
