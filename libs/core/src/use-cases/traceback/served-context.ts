import type { DocumentRepository } from '../../ports/repositories/repositories.port';

/**
 * The texts an event's user was served, as far as the event's verdicts know them: those judged in its first round
 * (round 0, the served texts the report named, or else round 1, the top K retrieved for the question). A served answer
 * sentence was quoted from one of them, so every later judgment of the event reads the answer against these (the
 * judge request's `context`), not against whatever a later round or an audit retrieves. Undefined before any verdict.
 * Takes the event's verdicts its caller has already listed.
 */
export async function servedContextOf(documents: DocumentRepository, verdicts: readonly { documentId: string; round: number }[]): Promise<string[] | undefined> {
  const rows = verdicts.filter((v) => v.round >= 0);
  if (!rows.length) return undefined;
  const first = Math.min(...rows.map((v) => v.round));
  const docs = await documents.get(rows.filter((v) => v.round === first).map((v) => v.documentId));
  return docs.map((d) => d.text);
}
