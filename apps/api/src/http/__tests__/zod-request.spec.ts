import 'reflect-metadata';
import { Body, Controller, Get, Module, Post, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { z } from 'zod';
// Straight from the file: the core barrel re-exports ./schemas once `export * from './schemas'` is added to it.
import { AnswerFeedbackRequest, ListQuarantinesQuery, ReviewNoteRequest, SubmitFeedbackRequest } from '../../../../../libs/core/src/schemas';
import { ZodBody, ZodQuery, cleanForOpenApi, openApiSchema } from '../zod-request';

@Controller('t')
class ProbeController {
  @Post('feedback')
  @ZodBody(z.union([SubmitFeedbackRequest, AnswerFeedbackRequest]))
  feedback(@Body() body: unknown) { return body; }

  @Post('note')
  @ZodBody(ReviewNoteRequest, { required: false })
  note(@Body() body: unknown) { return body; }

  @Get('list')
  @ZodQuery(ListQuarantinesQuery)
  list(@Query() query: unknown) { return query; }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

type Json = Record<string, any>;

describe('zod-request: OpenAPI from the request schemas', () => {
  let doc: Json;
  beforeAll(async () => {
    const app = await NestFactory.create(ProbeModule, { logger: false });
    doc = SwaggerModule.createDocument(app, new DocumentBuilder().setTitle('t').build()) as Json;
    await app.close();
  });

  it('ZodBody documents the schema\'s JSON schema (required fields, limits, no unknown keys)', () => {
    const body = doc.paths['/t/feedback'].post.requestBody;
    expect(body.required).toBe(true);
    const [apiKey, token] = body.content['application/json'].schema.anyOf;
    expect(apiKey).toMatchObject({ type: 'object', required: ['query', 'wrongAnswer'], additionalProperties: false });
    expect(apiKey.properties.query).toMatchObject({ type: 'string', maxLength: 4000 });
    expect(apiKey.properties.k).toMatchObject({ type: 'integer', minimum: 1, maximum: 50 });
    // the token path: the fields that come from the logged answer are not offered
    expect(Object.keys(token.properties)).toEqual(['correctAnswer', 'wrongAnswer', 'reporter', 'feedbackToken', 'answerId']);
  });

  it('ZodBody({required: false}) for a body that may be absent', () => {
    const body = doc.paths['/t/note'].post.requestBody;
    expect(body.required).toBe(false);
    expect(body.content['application/json'].schema.properties.note).toMatchObject({ type: 'string', maxLength: 2000 });
  });

  it('ZodQuery documents one query parameter per property', () => {
    const params = doc.paths['/t/list'].get.parameters as Json[];
    const state = params.find((p) => p.name === 'state')!;
    expect(state).toMatchObject({ in: 'query', required: false, description: 'filter by state', schema: { type: 'string', enum: ['QUARANTINED', 'NEEDS_REVIEW', 'RESTORED', 'PURGED'] } });
    expect(params.find((p) => p.name === 'collection')).toMatchObject({ in: 'query', required: false, schema: { type: 'string' } });
  });

  it('cleanForOpenApi drops z.never() properties (and their required entries) and $schema', () => {
    expect(cleanForOpenApi({ $schema: 'x', type: 'object', properties: { a: { type: 'string' }, b: { not: {} } }, required: ['a', 'b'] }))
      .toEqual({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    expect(openApiSchema(z.strictObject({ b: z.never() })).required).toBeUndefined();
  });
});
