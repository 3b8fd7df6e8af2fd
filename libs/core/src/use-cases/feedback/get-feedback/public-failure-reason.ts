/** Longest failure reason shown to API clients. */
export const PUBLIC_FAILURE_REASON_MAX = 300;

/**
 * What an API client sees of a stored failure reason (issue 10, "errors that say what a client
 * needs and nothing more"). The reason is stored in full (an exception's message, sometimes with
 * a stack, source paths and code lines); clients get its first line, with file paths (`/…/x.ts:12:3`,
 * `file://…`, `node:internal/…`, `C:\…`) replaced by `<path>`, at most {@link PUBLIC_FAILURE_REASON_MAX}
 * characters, and `detailsWithheld` when anything was left out.
 */
export function publicFailureReason(full: string | null | undefined): { reason: string | null; detailsWithheld: boolean } {
  if (full === null || full === undefined) return { reason: null, detailsWithheld: false };
  const first = full.split(/\r?\n/).map((l) => l.trim()).find((l) => l && !/^at\s/.test(l)) ?? '';
  let reason = first.slice(0, 4 * PUBLIC_FAILURE_REASON_MAX)
    .replace(/(?:file:\/\/|node:)[^\s'"()<>]+/g, '<path>')
    .replace(/(?:[A-Za-z]:\\|\/)(?:[^\s'"()<>:\\/]+[\\/])+[^\s'"()<>:]*(?::\d+)*/g, '<path>')
    .replace(/[^\s'"()<>]+\.(?:[cm]?[jt]s|tsx?|jsx?)(?::\d+)+/g, '<path>');
  if (reason.length > PUBLIC_FAILURE_REASON_MAX) reason = `${reason.slice(0, PUBLIC_FAILURE_REASON_MAX - 1)}…`;
  if (!reason) reason = 'the traceback failed';
  return { reason, detailsWithheld: reason !== full };
}
