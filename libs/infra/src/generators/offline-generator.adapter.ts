import { quoteSentences } from '@forensics/algorithms';
import { stripReservedMarkers, type BenignTextRequest, type BenignTextResult, type GenerateRequest, type GenerateResult, type Generator } from '@forensics/core';

/** What the offline generator says when no context shares a term with the query (as rag-v1 asks). */
export const OFFLINE_NO_ANSWER = "I don't know";
export const OFFLINE_EXTRACT_V1 = 'offline-extract-v1';
export const OFFLINE_EXTRACT_BTE_V1 = 'offline-extract-bte-v1';
export const OFFLINE_TEMPLATE_V1 = 'offline-template-v1';
export const OFFLINE_BENIGN_MAX_WORDS = 30;

const STOPWORDS = new Set(
  ('a an and are as at be been but by can did do does for from had has have how i if in into is it its me my no not of on or ' +
    'our so than that the their them then there these they this to was we were what when where which who whom whose why will ' +
    'with would you your about after before during over under between also just any all some such only own same too very s t')
    .split(' '),
);

/** Lower-cased word terms without stopwords; a plural 's' is dropped so "episodes" meets "episode". */
function terms(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOPWORDS.has(raw)) continue;
    out.add(raw.length > 3 && raw.endsWith('s') && !raw.endsWith('ss') ? raw.slice(0, -1) : raw);
  }
  return out;
}

/** The inner texts of `[LATEST] … [/LATEST]` spans, in order. */
function latestSpans(text: string): string[] {
  return [...text.matchAll(/\[LATEST\]([\s\S]*?)\[\/LATEST\]/g)].map((m) => m[1].trim()).filter(Boolean);
}

/**
 * First text (in the given order) with a sentence sharing ≥ 1 query term AND adding a term the
 * query does not have (a sentence that only restates the question answers nothing); its best
 * sentence by shared query terms (earliest on ties).
 */
function bestSentence(texts: readonly string[], queryTerms: Set<string>): string | null {
  for (const text of texts) {
    let best: string | null = null;
    let bestScore = 0;
    // An initial ("J. R. R. Tolkien"), an initialism ("U.S. Army") or "Dr." ends no sentence; uncased text is split too.
    for (const s of quoteSentences(text)) {
      let score = 0;
      let novel = 0;
      for (const t of terms(s)) if (queryTerms.has(t)) score++; else novel++;
      if (novel > 0 && score > bestScore) { best = s; bestScore = score; }
    }
    if (best) return best;
  }
  return null;
}

function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

/**
 * Generator without an LLM, clearly labelled (`kind`/`model` say offline) so no one mistakes its
 * output for a model's. Answers are extractive: the best sentence (most distinct query terms) of
 * the highest-ranked context that shares any term with the query — with BTE, texts inside
 * `[LATEST] … [/LATEST]` are searched first, mimicking the BTE prompt's "focus on the wrapped
 * entry" — else "I don't know". Benign texts come from a fixed declarative template.
 */
export class OfflineGenerator implements Generator {
  readonly kind = 'offline';
  readonly model = 'offline-extractive-v1';

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const started = performance.now();
    const q = terms(stripReservedMarkers(request.query));
    const preferred = request.enhanced ? request.contexts.flatMap(latestSpans) : [];
    const plain = request.contexts.map(stripReservedMarkers);
    const found = q.size ? bestSentence(preferred, q) ?? bestSentence(plain, q) : null;
    return {
      answer: found ? stripReservedMarkers(found).trim() : OFFLINE_NO_ANSWER,
      promptVersion: request.enhanced ? OFFLINE_EXTRACT_BTE_V1 : OFFLINE_EXTRACT_V1,
      latencyMs: Math.round(performance.now() - started),
    };
  }

  /**
   * `<c> is the answer to the question "<q>".` in at most 30 words (the bte-v1 limit): the answer
   * first, so an extractive reader meets it at once. The correct answer is always kept whole; the
   * question is shortened with "…" (or dropped: "The answer is <c>.") to fit. A correct answer of
   * more than 27 words alone is cut to 27 words.
   */
  async benignText(request: BenignTextRequest): Promise<BenignTextResult> {
    const q = words(stripReservedMarkers(request.query).replace(/[?.!\s]+$/, ''));
    let c = words(stripReservedMarkers(request.correctAnswer).replace(/[.\s]+$/, ''));
    if (!c.length) throw new RangeError('correctAnswer must not be empty');
    const room = OFFLINE_BENIGN_MAX_WORDS - 6 - c.length; // "is the answer to the question"
    let text: string;
    if (q.length && room >= 1) {
      const question = q.length <= room ? q.join(' ') : `${q.slice(0, room).join(' ')}…`;
      text = `${c.join(' ')} is the answer to the question "${question}".`;
    } else {
      c = c.slice(0, OFFLINE_BENIGN_MAX_WORDS - 3);
      text = `The answer is ${c.join(' ')}.`;
    }
    return { text, promptVersion: OFFLINE_TEMPLATE_V1 };
  }
}
