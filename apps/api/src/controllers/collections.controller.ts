import { Body, Controller, Get, HttpCode, Inject, NotFoundException, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { IngestCorpusUseCase, ValidationError, parseIngestRecord } from '@forensics/core';
import type { Runtime } from '@forensics/infra';
import { RUNTIME } from '../http/tokens';

export const INGEST_MAX_RECORDS = 5000;

@ApiTags('collections')
@ApiSecurity('api-key')
@Controller('v1/collections')
export class CollectionsController {
  private readonly ingest: IngestCorpusUseCase;

  constructor(@Inject(RUNTIME) private readonly rt: Runtime) {
    this.ingest = new IngestCorpusUseCase({ repo: rt.repo, store: rt.store, embedder: rt.embedder });
  }

  @Post(':name/documents')
  @HttpCode(200)
  @ApiOperation({ summary: 'Ingest texts {id?, text, metadata?} into a collection (idempotent by text hash; [LATEST] markers stripped)' })
  @ApiBody({ schema: { type: 'object', required: ['documents'], properties: { documents: { type: 'array', maxItems: INGEST_MAX_RECORDS, items: { type: 'object', required: ['text'], properties: { id: { type: 'string' }, text: { type: 'string' }, metadata: { type: 'object' } } } } } } })
  async add(@Param('name') name: string, @Body() body: unknown) {
    const docs = (body as { documents?: unknown } | null)?.documents;
    if (!Array.isArray(docs)) throw new ValidationError('body must be {"documents": [{"id"?, "text", "metadata"?}, …]}');
    if (!docs.length) throw new ValidationError('documents must not be empty');
    if (docs.length > INGEST_MAX_RECORDS) throw new ValidationError(`at most ${INGEST_MAX_RECORDS} documents per request; split the upload`);
    const records = docs.map((d, i) => parseIngestRecord(d, `documents[${i}]`));
    const r = await this.ingest.execute({ collection: name, records });
    return r;
  }

  @Get(':name')
  @ApiOperation({ summary: 'Collection info: embedder, dimension, document counts' })
  async info(@Param('name') name: string) {
    const c = await this.rt.repo.getCollection(name);
    if (!c) throw new NotFoundException(`collection '${name}' is unknown`);
    return { ...c, documents: await this.rt.repo.countDocuments(name), vectors: await this.rt.store.count(name) };
  }
}
