import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { z } from 'zod';

/** OpenAPI's Schema Object, as @nestjs/swagger types it (taken from ApiBody: its interfaces are not a public entry point). */
type SchemaObject = Exclude<Extract<Parameters<typeof ApiBody>[0], { schema: unknown }>['schema'], { $ref: string }>;

/**
 * OpenAPI from the request schemas of @forensics/core (one schema per request: type, validation,
 * documentation).
 *
 * Validation: handlers call `parseRequest(Schema, body)` (or the use case's `validateX`, which is
 * that call plus the configured defaults) rather than going through a `ZodValidationPipe`. Why: it
 * is the same single call everywhere (API, CLI, unit tests) with the same `ValidationError` the
 * errors filter already maps to the 400 body; POST /v1/feedback picks its schema from how the
 * request authenticated (API key or feedback token), which a pipe cannot see; and the defaults
 * that depend on configuration (collection, k) are filled right there, next to the settings.
 * So these decorators only document; the schema they document is the one the handler parses.
 */

/** The JSON schema of a request schema, as OpenAPI 3.0 wants it (the INPUT side: what a client sends). */
export function openApiSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): SchemaObject {
  return cleanForOpenApi(z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' })) as SchemaObject;
}

/**
 * Clean-up of `z.toJSONSchema` output for the OpenAPI document: no `$schema` / `$id`; properties
 * that may never be sent (`z.never()`, e.g. fields that come from the logged answer on the token
 * path) are left out, `additionalProperties: false` already refuses them.
 */
export function cleanForOpenApi(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(cleanForOpenApi);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).filter(([, p]) => !isNever(p)).map(([name, p]) => [name, cleanForOpenApi(p)]),
      );
      continue;
    }
    out[key] = cleanForOpenApi(value);
  }
  if (Array.isArray(out.required) && out.properties) {
    const props = out.properties as Record<string, unknown>;
    out.required = (out.required as string[]).filter((name) => name in props);
    if (!(out.required as string[]).length) delete out.required;
  }
  return out;
}

/** `{ not: {} }`: the JSON schema of `z.never()`. */
function isNever(p: unknown): boolean {
  if (typeof p !== 'object' || p === null) return false;
  const keys = Object.keys(p);
  const not = (p as { not?: unknown }).not;
  return keys.length === 1 && typeof not === 'object' && not !== null && Object.keys(not).length === 0;
}

export interface ZodBodyOptions {
  /** false: the body may be absent (the handler parses `body ?? {}`). Default true. */
  required?: boolean;
  description?: string;
}

/** Method decorator: documents the request body with the JSON schema of `schema` (the same schema the handler parses). */
export function ZodBody(schema: z.ZodType, opts: ZodBodyOptions = {}): MethodDecorator {
  return ApiBody({ schema: openApiSchema(schema), required: opts.required ?? true, ...(opts.description ? { description: opts.description } : {}) });
}

/** Method decorator: documents each property of an object schema as a query parameter (name, required, type, enum, description). */
export function ZodQuery(schema: z.ZodType): MethodDecorator {
  const js = openApiSchema(schema);
  if (js.type !== 'object' || !js.properties) throw new TypeError('ZodQuery needs an object schema');
  const required = new Set(js.required ?? []);
  const params = Object.entries(js.properties).map(([name, p]) => {
    const { description, ...rest } = p as SchemaObject;
    return ApiQuery({ name, required: required.has(name), schema: rest, ...(description ? { description } : {}) });
  });
  return applyDecorators(...params);
}

/**
 * Method decorator: documents the response body of `status` with the JSON schema of `schema` (the
 * OUTPUT side). The handler declares `Promise<z.output<typeof schema>>` as its return type, so the
 * compiler keeps the two together (apps/api/src/http/response.schemas.ts).
 */
export function ZodResponse(status: number, schema: z.ZodType, description = 'OK'): MethodDecorator {
  return ApiResponse({ status, description, schema: openObjects(openApiSchema(schema, 'output')) as SchemaObject });
}

/** Responses may gain fields: `additionalProperties: false` (zod's output default for objects) is dropped. */
function openObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openObjects);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(Object.entries(node).filter(([k, v]) => !(k === 'additionalProperties' && v === false)).map(([k, v]) => [k, openObjects(v)]));
}
