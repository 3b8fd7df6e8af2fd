import { z } from 'zod';
import { echoInput, ValidationError } from './errors';
import { COLLECTION_NAME, stripReservedMarkers } from './text-identity';

/**
 * One schema per request (issue 9, item 4). Each request body / query is ONE zod schema, in core
 * beside its use case; from it come the TypeScript type (`z.infer`), the runtime validation
 * ({@link parseRequest}) and the OpenAPI document (the API's `ZodBody` / `ZodQuery` decorators run
 * `z.toJSONSchema` over it).
 *
 * Wording: every schema sets its own messages (`error:` per field / check), in the words the API
 * has always used ("query is required", "k must be an integer in [1, 50]" ...). Strict objects
 * report unknown keys, which {@link parseRequest} turns into one "unknown field 'x'" per key, listed
 * after the field problems, as the hand validators did.
 *
 * Defaults that depend on configuration (default collection, default k) are NOT in the schemas:
 * the schema leaves the field undefined and the caller fills it from the settings.
 */

/** Past this many problems the rest are summarised: a 5000-record upload must not answer a 5000-line 400. */
export const MAX_LISTED_PROBLEMS = 100;

/**
 * Parses `input` with `schema`; on failure throws {@link ValidationError} listing EVERY problem
 * (`message` = problems joined by '; ', `details` = the problems), which the API answers as one 400.
 */
export function parseRequest<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  // Unstorable strings first, wherever they are (any field, any depth, object keys too): a request
  // carrying one is refused whole, before any use case writes anything (issue 10, item 3).
  const unstorable = unstorableProblems(input);
  const r = schema.safeParse(input, { error: fallbackMessage });
  if (r.success && !unstorable.length) return r.data;
  const problems = r.success ? capProblems(unstorable) : capProblems([...new Set([...unstorable, ...allRequestProblems(r.error)])]);
  throw new ValidationError(problems.join('; '), problems);
}

// ── unstorable input (issue 10) ───────────────────────────────────────────────────────────────

/**
 * Why `s` cannot be stored, or undefined. Postgres refuses U+0000 in `text` and `jsonb` (22021),
 * and a lone UTF-16 surrogate has no UTF-8 encoding (it would be stored as U+FFFD, or refused):
 * either would fail half-way through a write, so the API refuses them up front with a 400.
 */
export function unstorableReason(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains a NUL character (U+0000), which cannot be stored';
  if (LONE_SURROGATE.test(s)) return 'contains a lone UTF-16 surrogate (invalid Unicode), which cannot be stored';
  return undefined;
}
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * One problem per unstorable string in `input` (strings, array entries, object values and keys, at
 * any depth), named by its path: "documents[0].text contains a NUL character (U+0000), which cannot
 * be stored". A key is never echoed (it is the unstorable part): "a key in documents[0].metadata …".
 */
export function unstorableProblems(input: unknown, path: PropertyKey[] = []): string[] {
  // Iterative (an explicit stack, depth-first in document order): a deeply nested body must not be
  // able to exhaust the call stack here (issue 35, item 5; the API also refuses bodies past JSON_MAX_DEPTH).
  // Paths are linked to their parent and spelled out only for a problem: copying them at each level
  // would cost depth² on a deep value. A stack entry is a value to visit, or a problem already found
  // (a bad key), kept in document order.
  type Path = { key: PropertyKey; up: Path | null } | null;
  type Entry = { v: unknown; at: Path } | { problem: string };
  const spell = (at: Path): string => {
    const keys: PropertyKey[] = [];
    for (let p = at; p; p = p.up) keys.push(p.key);
    return formatPath([...path, ...keys.reverse()]) || 'body';
  };
  const out: string[] = [];
  const seen = new Set<object>();
  const stack: Entry[] = [{ v: input, at: null }];
  while (stack.length) {
    const e = stack.pop()!;
    if ('problem' in e) { out.push(e.problem); continue; }
    const { v, at } = e;
    if (typeof v === 'string') {
      const why = unstorableReason(v);
      if (why) out.push(`${spell(at)} ${why}`);
      continue;
    }
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    seen.add(v);
    const children: Entry[] = [];
    if (Array.isArray(v)) v.forEach((x, i) => children.push({ v: x, at: { key: i, up: at } }));
    else {
      for (const [k, x] of Object.entries(v)) {
        const why = unstorableReason(k);
        children.push(why ? { problem: `a key in ${spell(at)} ${why}` } : { v: x, at: { key: k, up: at } });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

/** Throws a 400 {@link ValidationError} naming `field` when `value` (a path parameter, a header) cannot be stored. */
export function assertStorable(field: string, value: string | undefined | null): void {
  if (typeof value !== 'string') return;
  const why = unstorableReason(value);
  if (why) throw new ValidationError(`${field} ${why}`);
}

/**
 * The problems of a failed parse, in the order the hand validators listed them: field problems
 * first (one per field: the first, e.g. "query must be a string" and not also "query must not be
 * empty" for `query: []`), then unknown fields; no message twice.
 */
export function requestProblems(error: z.ZodError): string[] {
  return capProblems(allRequestProblems(error));
}

function allRequestProblems(error: z.ZodError): string[] {
  const fields: string[] = [];
  const unknown: string[] = [];
  const seenPaths = new Set<string>();
  for (const iss of error.issues) {
    if (iss.code === 'unrecognized_keys') {
      const at = elementLocation(iss.path);
      for (const key of iss.keys) unknown.push(`${at}unknown field '${echoInput(key)}'`);
      continue;
    }
    const path = JSON.stringify(iss.path);
    if (seenPaths.has(path)) continue;
    seenPaths.add(path);
    fields.push(iss.message);
  }
  return [...new Set([...fields, ...unknown])];
}

function capProblems(all: string[]): string[] {
  if (all.length <= MAX_LISTED_PROBLEMS) return all;
  const rest = all.length - (MAX_LISTED_PROBLEMS - 1);
  return [...all.slice(0, MAX_LISTED_PROBLEMS - 1), `… and ${rest} more problems`];
}

/**
 * Messages for checks a schema did not word itself (zod's English default, prefixed with where it
 * happened): a safety net, every schema of ours words its own checks.
 */
function fallbackMessage(iss: z.core.$ZodRawIssue): string {
  const d = z.config().localeError?.(iss);
  const text = typeof d === 'string' ? d : d?.message ?? 'invalid value';
  const at = formatPath(iss.path ?? []);
  return at ? `${at}: ${text}` : text;
}

/** `['documents', 3, 'text']` → `documents[3].text`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

/**
 * Where an issue inside an array of objects happened, as a message prefix: `documents[3]: ` for
 * the path `['documents', 3, 'text']`; '' when the path crosses no array element (a record
 * validated on its own, whose caller names it).
 */
export function elementLocation(path: readonly PropertyKey[] | undefined): string {
  const p = path ?? [];
  let last = -1;
  p.forEach((seg, i) => { if (typeof seg === 'number') last = i; });
  return last < 0 ? '' : `${formatPath(p.slice(0, last + 1))}: `;
}

// ── building blocks shared by the request schemas ─────────────────────────────────────────────

/** What every request body's OpenAPI description says about unstorable strings (enforced by {@link parseRequest}). */
export const UNSTORABLE_INPUT_NOTE =
  'No string anywhere in the request (values at any depth, object keys, path parameters, Idempotency-Key) may contain ' +
  'U+0000 (NUL) or a lone UTF-16 surrogate: such a request is refused whole with a 400 naming the field, and nothing is written.';

/** A request body: a JSON object whose unknown keys are problems ("unknown field 'x'"). */
export function strictBody<T extends z.core.$ZodLooseShape>(shape: T, notAnObject = 'body must be a JSON object') {
  return z.strictObject(shape, { error: (iss) => (iss.code === 'invalid_type' ? notAnObject : undefined) }).meta({ description: UNSTORABLE_INPUT_NOTE });
}

export interface TextFieldOptions {
  /** Longest accepted string (characters, before any clean-up). */
  max: number;
  /**
   * Required fields only: how "empty" is judged — `trim`: blank after trimming; `markers`: blank
   * once the reserved `[LATEST]` markers are removed and trimmed (what the use case would keep).
   */
  nonEmpty?: 'trim' | 'markers';
  /** `null` counts as missing ("X is required") rather than as a wrong type ("X must be a string"). */
  nullIsMissing?: boolean;
}

/** A string field worded "X is required" / "X must be a string" / "X must not be empty" / "X is longer than N characters". */
export function textField(name: string, o: TextFieldOptions) {
  let s = z.string({ error: (iss) => (iss.input === undefined || (o.nullIsMissing && iss.input === null) ? `${name} is required` : `${name} must be a string`) });
  if (o.nonEmpty) {
    const blank = o.nonEmpty === 'markers' ? (v: string) => !stripReservedMarkers(v).trim() : (v: string) => !v.trim();
    s = s.min(1, { error: `${name} must not be empty`, abort: true }).refine((v) => !blank(v), { error: `${name} must not be empty`, abort: true });
  }
  return s.max(o.max, { error: `${name} is longer than ${o.max} characters` });
}

/** A collection name; the schema leaves it undefined when absent (the caller applies the configured default). */
export function collectionName() {
  const msg = 'collection must match [A-Za-z0-9_-]{1,64}';
  return z.string({ error: msg }).regex(COLLECTION_NAME, { error: msg }).meta({ description: 'collection name (default: the configured default collection)', example: 'default' });
}

/** A top-k; the schema leaves it undefined when absent (the caller applies the configured default k). */
export function topK(max: number) {
  const msg = `k must be an integer in [1, ${max}]`;
  return z.int({ error: msg }).min(1, { error: msg }).max(max, { error: msg }).meta({ description: 'how many texts to retrieve (default: the configured k)' });
}

/** Longest accepted served id (document ids are UUIDs; retrieval proxies too). */
export const SERVED_ID_MAX_LENGTH = 200;

/** The ids of the served texts: non-empty strings, at most `max` of them. `required` words the missing case. */
export function servedIdList(max: number, required?: string) {
  const msg = 'servedIds must be an array of non-empty strings';
  const id = z.string({ error: msg }).min(1, { error: msg }).max(SERVED_ID_MAX_LENGTH, { error: msg });
  return z.array(id, { error: (iss) => (required && iss.input === undefined ? required : msg) })
    .max(max, { error: `servedIds has more than ${max} entries` })
    .meta({ description: 'ids of the texts the RAG served for this answer, in rank order (ingestion returns them)' });
}
