import type { Repositories, Token } from '@forensics/core';
import type { AppConfig } from '../config/app-config';
import type { PrismaClient } from '../prisma/prisma-client';
import type { ForensicsMetrics } from '../metrics/metrics';
import type { EmbeddedService } from '../runtime/embedded-services';

/** Where this process's Postgres and Redis are, and the embedded services it started itself. */
/** `llmBaseURL`: the embedded local LLM's endpoint (LOCAL_LLM), when this process's judge or generator uses it. */
export interface Endpoints { databaseUrl: string; redisUrl: string | null; llmBaseURL?: string; services: EmbeddedService[] }

/** Injection tokens of infrastructure-only values (core's port tokens live in @forensics/core). */
export const APP_CONFIG: Token<AppConfig> = Symbol('AppConfig');
export const ENDPOINTS: Token<Endpoints> = Symbol('Endpoints');
export const PRISMA: Token<PrismaClient> = Symbol('PrismaClient');
export const REPOSITORIES: Token<Repositories> = Symbol('Repositories');
export const REDIS_CONNECTION = Symbol('RedisConnection');
/** The process's Prometheus registry and series (ForensicsMetrics). */
export const METRICS: Token<ForensicsMetrics> = Symbol('Metrics');
