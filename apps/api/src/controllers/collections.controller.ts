import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { DescribeCollectionUseCase, IngestCorpusUseCase, ValidationError, parseIngestRecord } from '@forensics/core';

export const INGEST_MAX_RECORDS = 5000;

@ApiTags('collections')
@ApiSecurity('api-key')
@Controller('v1/collections')
export class CollectionsController {
  constructor(
    @Inject(IngestCorpusUseCase) private readonly ingest: IngestCorpusUseCase,
    @Inject(DescribeCollectionUseCase) private readonly describe: DescribeCollectionUseCase,
  ) {}

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
    return this.describe.execute({ collection: name });
  }
}
