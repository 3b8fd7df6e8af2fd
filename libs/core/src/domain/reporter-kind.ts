/**
 * Where a feedback event's `reporter` name comes from (issue 56, item 5), so that the console and the API say
 * how far it can be believed. Derived from the credentials the report came with (trust, reporterSource),
 * never from the name:
 * - `self-declared`: a feedback token (a browser widget, `trust` anonymous, source `addr:<hash>`): the end user
 *   typed it and nobody vouches for it — "admin" or "security team" from a token proves nothing;
 * - `named-by-key`: an API key (or console session) sent it in the body (`key:<id>/<name>`): the key's holder
 *   names its own user, the key answers for it;
 * - `key`: no name was sent; the reporter is the key or session's own name (`key:<id>`);
 * - `system`: an in-process caller (CLI, eval harness, an audit) with no credentials;
 * - null: no reporter.
 */
export type ReporterKind = 'self-declared' | 'named-by-key' | 'key' | 'system';
export const REPORTER_KINDS = ['self-declared', 'named-by-key', 'key', 'system'] as const;

export function reporterKindOf(ev: { reporter: string | null; trust?: string | null; reporterSource?: string | null }): ReporterKind | null {
  if (ev.reporter === null || ev.reporter === undefined || ev.reporter === '') return null;
  const source = ev.reporterSource ?? '';
  if (source.startsWith('audit:')) return 'system';
  // Anonymous (a token) or an unknown kind of source: nobody vouches for the name.
  if (ev.trust === 'anonymous' || source.startsWith('addr:')) return 'self-declared';
  if (source.startsWith('key:')) return source.includes('/') ? 'named-by-key' : 'key';
  if (!source) return 'system';
  return 'self-declared';
}
