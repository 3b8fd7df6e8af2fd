import { z } from 'zod';
import { elementLocation, strictBody } from '../../../domain/request-schema';

/** Longest ingested text (characters); re-exported by ingest-corpus.use-case. */
export const INGEST_TEXT_LIMIT = 100_000;
/** Most records per POST /v1/collections/:name/documents (bigger corpora: several calls, or the CLI). */
export const INGEST_MAX_RECORDS = 5000;

/** A record's message, prefixed with its place when it sits in an array ("documents[3]: …"). */
const at = (message: string) => (iss: { path?: PropertyKey[] }) => `${elementLocation(iss.path)}${message}`;
const NON_EMPTY_TEXT = 'text must be a non-empty string';

/**
 * One text to ingest, `{id?, text, metadata?}` (a JSONL line for the CLI, an element of `documents`
 * for the API). `id` (string or number) becomes a string. Keys beyond these are ignored, as they
 * always were: corpus files carry their own extra fields.
 */
export const IngestRecordSchema = z.object({
  id: z.union([z.string(), z.number()], { error: at('id must be a string or number') }).nullish().describe('your id for the text (kept as externalId)'),
  text: z.string({ error: at(NON_EMPTY_TEXT) })
    .min(1, { error: at(NON_EMPTY_TEXT), abort: true })
    .refine((t) => t.trim() !== '', { error: at(NON_EMPTY_TEXT), abort: true })
    .max(INGEST_TEXT_LIMIT, { error: at(`text is longer than ${INGEST_TEXT_LIMIT} characters`) }),
  metadata: z.record(z.string(), z.unknown(), { error: at('metadata must be an object') }).nullish(),
}, { error: at('must be an object {id?, text, metadata?}') })
  .transform((r) => ({ id: r.id === undefined || r.id === null ? undefined : String(r.id), text: r.text, metadata: r.metadata ?? undefined }));
export type IngestRecordInput = z.input<typeof IngestRecordSchema>;

const NOT_DOCUMENTS = 'body must be {"documents": [{"id"?, "text", "metadata"?}, …]}';

/** Body of POST /v1/collections/:name/documents: `{documents: [{id?, text, metadata?}, …]}`, 1..INGEST_MAX_RECORDS records. */
export const IngestDocumentsRequest = strictBody({
  documents: z.array(IngestRecordSchema, { error: NOT_DOCUMENTS })
    .min(1, { error: 'documents must not be empty' })
    .max(INGEST_MAX_RECORDS, { error: `at most ${INGEST_MAX_RECORDS} documents per request; split the upload` }),
}, NOT_DOCUMENTS);
export type IngestDocumentsRequestBody = z.infer<typeof IngestDocumentsRequest>;
