import { z } from 'zod';
import { strictBody } from '../../../domain/request-schema';
import { INGEST_TEXT_LIMIT } from '../../collections/ingest-corpus/ingest-corpus.schema';

/** Ids plus texts looked up in one call (a retriever's page of candidates is far smaller). */
export const SERVING_LOOKUP_MAX = 1000;

const idList = z.array(z.string({ error: 'ids must be an array of strings' }).min(1, { error: 'ids must not contain an empty string' }).max(200, { error: 'ids must be at most 200 characters each' }), { error: 'ids must be an array of strings' })
  .max(SERVING_LOOKUP_MAX, { error: `ids has more than ${SERVING_LOOKUP_MAX} entries` })
  .meta({ description: "this service's document ids (ingestion returns them)" });
const textList = z.array(z.string({ error: 'texts must be an array of strings' }).max(INGEST_TEXT_LIMIT, { error: `texts must be at most ${INGEST_TEXT_LIMIT} characters each` }), { error: 'texts must be an array of strings' })
  .max(SERVING_LOOKUP_MAX, { error: `texts has more than ${SERVING_LOOKUP_MAX} entries` })
  .meta({ description: 'texts as an app keeps them in its own store; matched by the same identity ingestion uses (markers stripped, NFC, SHA-256)' });

/**
 * Body of POST /v1/collections/:name/serving-status: `{ids?, texts?}` (together at most
 * SERVING_LOOKUP_MAX). Answers, per entry, whether the service withholds the text from serving.
 */
export const ServingStatusRequest = strictBody({ ids: idList.optional(), texts: textList.optional() })
  .refine((b) => (b.ids?.length ?? 0) + (b.texts?.length ?? 0) <= SERVING_LOOKUP_MAX, { error: `ids and texts together have more than ${SERVING_LOOKUP_MAX} entries` });
export type ServingStatusRequestBody = z.infer<typeof ServingStatusRequest>;

const entry = z.object({
  id: z.string().nullable().meta({ description: "the service's document id (null: a text it never ingested)" }),
  known: z.boolean().meta({ description: 'the service holds this text in the collection' }),
  status: z.enum(['ACTIVE', 'QUARANTINED', 'PURGED']).nullable().meta({ description: 'document status; QUARANTINED also covers a text withheld while it awaits review' }),
  withheld: z.boolean().meta({ description: 'true: the service keeps this text out of serving (quarantined, withheld for review or purged); drop it' }),
});
export type ServingStatusEntry = z.output<typeof entry>;

/** Response: one entry per requested id and per requested text, in request order. */
export const ServingStatusResponse = z.object({ collection: z.string(), ids: z.array(entry), texts: z.array(entry) });
export type ServingStatusResponseBody = z.output<typeof ServingStatusResponse>;
