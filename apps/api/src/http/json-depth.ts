/**
 * Nesting depth of a JSON body, measured on the raw text before anything parses it (issue 35,
 * item 5). A body nested 5,000 deep parsed fine (V8's JSON.parse does not recurse) but then reached
 * code that did — the unstorable-string walk of request-schema.ts — and answered 500 with "Maximum
 * call stack size exceeded". That walk is iterative now; refusing the body here as well, with a 400
 * naming the limit, means no code behind it (zod, a walker added later, Postgres's jsonb input)
 * ever meets a value deeper than the limit.
 *
 * Why our own code: JSON parsers do not report depth, and the streaming parsers on npm that could
 * (stream-json, clarinet, …) build a token stream we would throw away, at several times the cost of
 * JSON.parse; a depth check needs only to count brackets outside strings, one pass over the bytes,
 * no allocation. The scan never recurses and stops at the first bracket past the limit.
 *
 * Bytes, not characters: in UTF-8 the bytes of `"`, `\`, `[`, `{`, `]`, `}` never occur inside a
 * multi-byte character, so the scan reads the Buffer as it arrived. Malformed JSON is not judged
 * here (unbalanced brackets, a string never closed): JSON.parse refuses it right after.
 */

/** Default of JSON_MAX_DEPTH: the API's deepest legitimate body is ingestion's `{documents: [{metadata: {…}}]}`, which leaves metadata 29 levels. */
export const DEFAULT_JSON_MAX_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether the JSON text in `body` (UTF-8 bytes, or a string) opens more than `maxDepth` arrays /
 * objects inside each other anywhere; brackets inside strings do not count. `{}` is depth 1,
 * `{"a": [1]}` depth 2.
 */
export function exceedsJsonDepth(body: Uint8Array | string, maxDepth: number): boolean {
  const at = typeof body === 'string' ? (i: number) => body.charCodeAt(i) : (i: number) => body[i];
  const n = body.length;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < n; i++) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i++; // the escaped character, whatever it is, does not end the string
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** The message of the 400 for a body past the limit (the same on the Nest routes and the intake's fast path). */
export function tooDeepMessage(maxDepth: number): string {
  return `JSON body nested deeper than ${maxDepth} levels of arrays and objects (JSON_MAX_DEPTH): flatten it`;
}

/** body-parser's error type for a body past the limit (mapped to the 400 by `bodyErrorOf`). */
export const TOO_DEEP_TYPE = 'entity.too.deep';

/**
 * body-parser's `verify` hook: throws a 400 (`TOO_DEEP_TYPE`) for a body past `maxDepth`, before
 * body-parser parses it. Charsets other than UTF-8 (body-parser also reads UTF-16) are decoded first.
 */
export function jsonDepthVerifier(maxDepth: number) {
  return (_req: unknown, _res: unknown, buf: Buffer, encoding: string): void => {
    const utf8 = !encoding || /^utf-?8$/i.test(encoding);
    let text: Uint8Array | string = buf;
    if (!utf8) {
      try {
        text = new TextDecoder(encoding).decode(buf);
      } catch {
        throw Object.assign(new Error(`unsupported charset "${encoding}"`), { status: 415, type: 'charset.unsupported' });
      }
    }
    if (exceedsJsonDepth(text, maxDepth)) throw Object.assign(new Error(tooDeepMessage(maxDepth)), { status: 400, type: TOO_DEEP_TYPE });
  };
}
