import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Req } from '@nestjs/common';
import { ApiOperation, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { assertStorable, CheckServingUseCase, DescribeCollectionUseCase, IngestCorpusUseCase, IngestDocumentsRequest, ListCollectionsUseCase, parseRequest, ServingStatusRequest, VetCollectionRequest, VetCollectionUseCase } from '@forensics/core';
import { actorOf } from '../http/api-key.guard';
import { ZodBody, ZodResponse } from '../http/zod-request';
import { IngestResponse, ServingStatusResponse, VettedBaselineResponse, type Out } from '../http/response.schemas';
import { Allow, assertCollectionAllowed, collectionScopeOf } from '../http/auth';

@ApiTags('collections')
@ApiSecurity('api-key')
@Controller('v1/collections')
export class CollectionsController {
  constructor(
    @Inject(IngestCorpusUseCase) private readonly ingest: IngestCorpusUseCase,
    @Inject(DescribeCollectionUseCase) private readonly describe: DescribeCollectionUseCase,
    @Inject(CheckServingUseCase) private readonly serving: CheckServingUseCase,
    @Inject(VetCollectionUseCase) private readonly vet: VetCollectionUseCase,
    @Inject(ListCollectionsUseCase) private readonly list: ListCollectionsUseCase,
  ) {}

  @Get()
  @Allow('read', 'ingest')
  @ApiOperation({ summary: 'Every collection: embedder, dimension, registered texts, vetted baseline (a key limited to collections: its own only)' })
  async all(@Req() req: Request) {
    const all = await this.list.execute();
    const scope = collectionScopeOf(req);
    return scope ? { items: all.items.filter((c) => scope.includes(c.name)) } : all;
  }

  @Post(':name/documents')
  @Allow('ingest')
  @HttpCode(200)
  @ApiOperation({ summary: 'Ingest texts {id?, text, metadata?} into a collection (idempotent by text hash; [LATEST] markers stripped)' })
  @ZodBody(IngestDocumentsRequest)
  @ZodResponse(200, IngestResponse)
  async add(@Param('name') name: string, @Body() body: unknown, @Req() req: Request): Promise<Out<typeof IngestResponse>> {
    assertStorable('collection', name);
    assertCollectionAllowed(req, name);
    const { documents: records } = parseRequest(IngestDocumentsRequest, body);
    return this.ingest.execute({ collection: name, records });
  }

  @Post(':name/serving-status')
  @Allow('read', 'answers')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Which of these texts (or ids) the service withholds from serving: quarantined, withheld for review, purged',
    description: 'For an app that retrieves from its own store: send the retrieved texts, drop those with withheld=true. Texts are matched by ingestion\'s identity (markers stripped, NFC, SHA-256); a text never ingested is known=false, withheld=false.',
  })
  @ZodBody(ServingStatusRequest)
  @ZodResponse(200, ServingStatusResponse)
  async servingStatus(@Param('name') name: string, @Body() body: unknown, @Req() req: Request): Promise<Out<typeof ServingStatusResponse>> {
    assertStorable('collection', name);
    assertCollectionAllowed(req, name);
    const { ids, texts } = parseRequest(ServingStatusRequest, body ?? {});
    return this.serving.execute({ collection: name, ids, texts });
  }

  @Put(':name/vetted-before')
  @Allow('manage')
  @HttpCode(200)
  @ApiOperation({
    summary: "Set the collection's vetted baseline: texts registered before the cutoff are never taken out of serving by a report alone",
    description: '{"before": ISO instant} sets the cutoff, {} sets it to now, {"before": null} clears it. A future cutoff is refused. A YES verdict on a vetted text goes to review with the text kept served (decision 0320). Admins only; audit-logged.',
  })
  @ZodBody(VetCollectionRequest)
  @ZodResponse(200, VettedBaselineResponse)
  async setVettedBefore(@Param('name') name: string, @Body() body: unknown, @Req() req: Request): Promise<Out<typeof VettedBaselineResponse>> {
    assertStorable('collection', name);
    const { before } = parseRequest(VetCollectionRequest, body ?? {});
    return this.vet.execute({ collection: name, before, actor: actorOf(req) });
  }

  @Get(':name')
  @Allow('read', 'ingest')
  @ApiOperation({ summary: 'Collection info: embedder, dimension, document counts' })
  async info(@Param('name') name: string, @Req() req: Request) {
    assertStorable('collection', name);
    assertCollectionAllowed(req, name);
    return this.describe.execute({ collection: name });
  }
}
