import { parseRequest } from '../../../../domain/request-schema';
import { REVIEW, type ReviewCursor, type ReviewRepository } from '../../../../ports/repositories';
import type { InjectMap } from '../../../../use-case';
import { ReviewExportQuery, toReviewFilter } from '../review-items/review.schema';
import { itemSummary, type ItemSummary } from '../review-items/review-view';

export interface ReviewExportDeps { review: ReviewRepository }

const COLUMNS: readonly (keyof ItemSummary)[] = [
  'id', 'state', 'collection', 'documentId', 'feedbackId', 'query', 'wrongAnswer', 'judgeKind', 'judgeLabel', 'suspicion', 'createdAt',
  'decision', 'decidedBy', 'decidedAt', 'note', 'reasons', 'textPreview',
  // Issue 54: the app's own id and metadata (a JSON cell), appended so that the columns before keep their places.
  'externalId', 'metadata',
];

/**
 * One CSV cell, safe to open in a spreadsheet: a value starting with = + - @ (or a tab / carriage
 * return) is prefixed with a single quote so it is never run as a formula (CSV / formula
 * injection, OWASP); quoted (RFC 4180) when it holds a comma, quote or line break.
 */
export function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const PAGE = 500;

/**
 * Export of the queue (items matching the list filters) or of the decisions (decided items, any
 * state unless filtered) as CSV or JSONL, streamed page by page (keyset), never held in memory.
 */
export class ExportReviewUseCase {
  static readonly inject: InjectMap<ReviewExportDeps> = { review: REVIEW };
  constructor(private readonly deps: ReviewExportDeps) {}

  execute(query: unknown): { contentType: string; filename: string; lines: AsyncIterable<string> } {
    const p = parseRequest(ReviewExportQuery, query);
    const filter = p.what === 'decisions'
      ? { ...toReviewFilter(p), states: p.state ?? ['NEEDS_REVIEW', 'QUARANTINED', 'RESTORED', 'PURGED'], decided: true }
      : toReviewFilter(p);
    const sort = p.sort ?? (p.what === 'decisions' ? 'newest' : 'risk');
    const review = this.deps.review;
    const csv = p.format === 'csv';
    async function* lines(): AsyncIterable<string> {
      if (csv) yield `${COLUMNS.join(',')}\r\n`;
      let after: ReviewCursor | null = null;
      do {
        const page = await review.search(filter, { sort, limit: PAGE, after });
        for (const row of page.rows) {
          const s = itemSummary(row);
          // Reasons as one cell of `;`-joined keys (a spreadsheet filters on them); JSONL keeps the array.
          yield csv ? `${COLUMNS.map((c) => csvCell(c === 'reasons' ? s.reasons.join(';') : s[c])).join(',')}\r\n` : `${JSON.stringify(s)}\n`;
        }
        after = page.next;
      } while (after);
    }
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    return { contentType: csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8', filename: `review-${p.what}-${stamp}.${csv ? 'csv' : 'jsonl'}`, lines: lines() };
  }
}
