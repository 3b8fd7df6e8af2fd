import { z } from 'zod';
import { QUARANTINE_STATES, REPORTER_KINDS, ServingStatusResponse } from '@forensics/core';

/**
 * The response bodies of the routes the client SDKs (libs/client, libs/python-client) call, as zod schemas: the
 * OpenAPI document carries them (`@ZodResponse`), and each handler declares `z.output<…>` of its
 * schema as its return type, so the compiler refuses a handler whose result no longer fits what
 * the document (and the SDK's generated types) promise. Objects may grow:
 * the listed fields are promised, more may come (the document does not close them: `additionalProperties` is left out).
 */

/** A Date on the server, an ISO 8601 string on the wire (JSON.stringify). */
const timestamp = z.custom<Date | string>((v) => v instanceof Date || typeof v === 'string').meta({ type: 'string', format: 'date-time' });
const FEEDBACK_STATUSES = ['RECEIVED', 'QUEUED', 'TRACING', 'TRACED', 'BOUNDED', 'FAILED'] as const;
const quarantineState = z.enum(QUARANTINE_STATES);
const documentStatus = z.enum(['ACTIVE', 'QUARANTINED', 'PURGED']);
void documentStatus;

export const VettedBaselineResponse = z.object({
  name: z.string(),
  vettedBefore: z.string().nullable().meta({ description: 'the cutoff (ISO instant): texts registered before it are vouched for; null = no baseline' }),
  vettedTexts: z.number().int().nullable().meta({ description: "how many of the collection's texts the baseline covers now (null without one)" }),
});

export const IngestResponse = z.object({
  collection: z.string(),
  received: z.number().int(),
  inserted: z.number().int(),
  skipped: z.number().int(),
  ids: z.array(z.string()).meta({ description: "the service's id of each record, in request order (use them as servedIds)" }),
  markersStripped: z.number().int(),
  repaired: z.number().int(),
  admission: z.object({ watched: z.number().int(), judged: z.number().int(), held: z.number().int(), heldIds: z.array(z.string()) }),
});

const feedbackToken = { feedbackToken: z.string().meta({ description: 'signed token for the feedback button (Authorization: FeedbackToken <token>)' }), feedbackTokenExpiresAt: z.string().meta({ format: 'date-time' }) };

export const LogAnswerResponse = z.object({ answerId: z.string(), ...feedbackToken });

export const RagAnswerResponse = z.object({
  answerId: z.string(),
  answer: z.string(),
  contexts: z.array(z.object({
    id: z.string(), text: z.string(), score: z.number(),
    externalId: z.string().nullable().optional().meta({ description: "the app's own id of the text, given at ingest (absent for an enhancement's text)" }),
    metadata: z.record(z.string(), z.unknown()).nullable().optional().meta({ description: "the text's metadata as given at ingest (absent for an enhancement's text)" }),
    enhancement: z.literal(true).optional(), enhancementId: z.string().optional(),
  })),
  enhanced: z.boolean(),
  generator: z.object({ kind: z.string(), model: z.string(), promptVersion: z.string() }),
  ...feedbackToken,
});

export const FeedbackAccepted = z.object({
  id: z.string(),
  status: z.enum(FEEDBACK_STATUSES),
  duplicate: z.boolean().meta({ description: 'true: the same Idempotency-Key or feedback token already created this event' }),
  queued: z.boolean(),
  answerId: z.string().optional(),
  servedIds: z.array(z.string()).optional(),
  droppedServedIds: z.array(z.string()).optional(),
  message: z.string().optional(),
  links: z.object({ self: z.string() }),
});

const judgeRef = z.object({ kind: z.string(), model: z.string(), promptVersion: z.string() });

export const FeedbackView = z.object({
  id: z.string(),
  status: z.enum(FEEDBACK_STATUSES),
  step: z.string().nullable(),
  collection: z.string(),
  query: z.string(),
  wrongAnswer: z.string(),
  correctAnswer: z.string().nullable(),
  servedIds: z.array(z.string()),
  reporter: z.string().nullable(),
  reporterKind: z.enum(REPORTER_KINDS).nullable().meta({
    description: 'where `reporter` comes from: self-declared (a feedback token: the end user typed it, nobody vouches for it), named-by-key (an API key sent it in the body), key (the key or session itself), system (an in-process caller); null without a reporter',
  }),
  k: z.number().int(),
  attempts: z.number().int(),
  failureReason: z.string().nullable(),
  failureDetailsWithheld: z.boolean(),
  createdAt: timestamp,
  tracedAt: timestamp.nullable(),
  answerId: z.string().nullable(),
  verification: z.enum(['POISONED', 'NON_POISONED', 'INCONCLUSIVE']).nullable(),
  verificationDetails: z.unknown(),
  trace: z.unknown(),
  verdicts: z.array(z.object({
    documentId: z.string(), externalId: z.string().nullable(), text: z.string().nullable(), round: z.number().int(), label: z.string(),
    judge: judgeRef, reply: z.string(), cached: z.boolean(), retrieval: z.object({ rank: z.number(), score: z.number().nullable() }).nullable(), evidence: z.unknown(),
  })),
  quarantined: z.array(z.object({
    id: z.string(), documentId: z.string(), externalId: z.string().nullable(), text: z.string().nullable(), state: quarantineState, reason: z.string(), policy: z.string(),
    evidence: z.unknown(), createdBy: z.string(), createdAt: timestamp, resolvedBy: z.string().nullable(), resolvedAt: timestamp.nullable(), servedDuringReview: z.boolean(),
  })),
  enhancements: z.array(z.object({
    id: z.string(), state: z.enum(['PROPOSED', 'ACTIVE', 'DELETED']).describe('PROPOSED: waits for a reviewer, not served; ACTIVE: served; DELETED: taken out or rejected'),
    reason: z.string().nullable().describe('why it is served or only proposed'), correctAnswer: z.string(), benignText: z.string(), proxyId: z.string(), generator: judgeRef,
    createdAt: timestamp, approvedAt: timestamp.nullable(), approvedBy: z.string().nullable(), deletedAt: timestamp.nullable(),
  })),
});

/** How the app names a text: the id it gave at ingest and its metadata (issue 54: the reviewer knows texts by these, not by the service's UUIDs). */
const appNames = {
  externalId: z.string().nullable().meta({ description: "the app's own id of the text, given at ingest (null when it gave none)" }),
  metadata: z.record(z.string(), z.unknown()).nullable().meta({ description: "the app's metadata of the text as given at ingest (e.g. its source), null when none" }),
};

export const QuarantineRecordView = z.object({
  id: z.string(), documentId: z.string(), ...appNames, feedbackId: z.string().nullable(), collection: z.string(), reason: z.string(), policy: z.string(), state: quarantineState,
  servedDuringReview: z.boolean().meta({ description: 'NEEDS_REVIEW only: the text stays served while it awaits review' }),
  evidence: z.unknown(), createdBy: z.string(), createdAt: timestamp, resolvedBy: z.string().nullable(), resolvedAt: timestamp.nullable(), note: z.string().nullable(),
});
export const QuarantineList = z.object({ items: z.array(QuarantineRecordView) });

export const QuarantineDecision = z.object({ id: z.string(), state: quarantineState, documentId: z.string(), resolvedBy: z.string().nullable(), resolvedAt: timestamp.nullable() });

/** POST /v1/feedback/:id/correct-answer: the enhancement created (or found) for the event, and whether it is served now. */
export const CorrectAnswerResult = z.object({
  created: z.boolean().meta({ description: 'false: the event already had this enhancement (returned as it is, or approved now by a reviewer)' }),
  served: z.boolean().meta({ description: 'true: the enhancement is ACTIVE (served); false: PROPOSED, waiting for a reviewer' }),
  reason: z.string().meta({ description: 'why it is served or only proposed (the enhancement policy)' }),
  enhancement: z.object({
    id: z.string(), collection: z.string(), feedbackId: z.string(), query: z.string(), correctAnswer: z.string(), benignText: z.string(), proxyId: z.string(),
    generatorKind: z.string(), generatorModel: z.string(), promptVersion: z.string(),
    state: z.enum(['PROPOSED', 'ACTIVE', 'DELETED']), reason: z.string().nullable(), createdBy: z.string(), createdAt: timestamp,
    approvedAt: timestamp.nullable(), approvedBy: z.string().nullable(), deletedAt: timestamp.nullable(), deletedBy: z.string().nullable(),
  }),
});

export { ServingStatusResponse };

export type Out<S extends z.ZodType> = z.output<S>;
