import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { assertStorable, DescribeCollectionUseCase, IngestCorpusUseCase, IngestDocumentsRequest, parseRequest } from '@forensics/core';
import { ZodBody } from '../http/zod-request';
import { Allow } from '../http/auth';

@ApiTags('collections')
@ApiSecurity('api-key')
@Controller('v1/collections')
export class CollectionsController {
  constructor(
    @Inject(IngestCorpusUseCase) private readonly ingest: IngestCorpusUseCase,
    @Inject(DescribeCollectionUseCase) private readonly describe: DescribeCollectionUseCase,
  ) {}

  @Post(':name/documents')
  @Allow('ingest')
  @HttpCode(200)
  @ApiOperation({ summary: 'Ingest texts {id?, text, metadata?} into a collection (idempotent by text hash; [LATEST] markers stripped)' })
  @ZodBody(IngestDocumentsRequest)
  async add(@Param('name') name: string, @Body() body: unknown) {
    assertStorable('collection', name);
    const { documents: records } = parseRequest(IngestDocumentsRequest, body);
    return this.ingest.execute({ collection: name, records });
  }

  @Get(':name')
  @Allow('read', 'ingest')
  @ApiOperation({ summary: 'Collection info: embedder, dimension, document counts' })
  async info(@Param('name') name: string) {
    assertStorable('collection', name);
    return this.describe.execute({ collection: name });
  }
}
