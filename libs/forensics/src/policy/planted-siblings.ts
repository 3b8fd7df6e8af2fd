import { contentTerms, hasEdgeTokenSalad, termJaccard, withoutTokenSalad } from '../text';

/**
 * Planted siblings (issue 33): a text the judge read as NO that shares much of its wording with several of the
 * same report's clear YES texts. An attack's planted group is one generator's output for one question; the judge
 * misses the members that reword the answer past its support gate ("occupation … architect" → "trained in
 * architecture", a denial without a negation word), but they keep their siblings' words. Project design, not from
 * the papers; measured in docs/decisions/0250-lone-clear-yes.md.
 */
export interface PlantedSiblingParams {
  /**
   * Jaccard of the texts' own content terms (the question's and the answer's left out, token salad too) at which a
   * text counts as reworded from a clear YES text. 0.1: chosen by every held-out family, leave-one-family-out, from
   * {0.15, 0.1, 0.07} (decision 0250).
   */
  minJaccard: number;
  /** How many of the report's clear YES texts it must be that close to (one close text can be a genuine neighbour). */
  minSiblings: number;
  /**
   * The shared artefact: when at least `minSiblings` clear YES texts carry token salad at an edge (an optimisation
   * attack's prefix or suffix, `hasEdgeTokenSalad`), a text carrying it too is their sibling whatever its words
   * (the salad differs between siblings by design, and their prose may be reworded past the word overlap).
   */
  sharedSalad: boolean;
}

export const DEFAULT_PLANTED_SIBLINGS: Readonly<PlantedSiblingParams> = Object.freeze({ minJaccard: 0.1, minSiblings: 2, sharedSalad: true });

/**
 * What made a text a planted sibling: how many clear YES texts it is close to, and the closest Jaccard; `salad` when
 * it was the shared token-salad artefact (then `siblings` counts the clear YES texts carrying it).
 */
export interface SiblingMatch { siblings: number; bestJaccard: number; salad?: boolean }

/**
 * The `candidates` (id → text) that are planted siblings of `clearYes` (the report's clear YES texts): Jaccard of
 * their own content terms (outside `query` and `wrongAnswer`, token salad left out) ≥ `minJaccard` with at least
 * `minSiblings` of them, and closer to them than to any other candidate (the report's other texts judged NO).
 * Every text about the question shares the question's words, so they do not count; a planted group's member is
 * closer to its group than to the genuine texts, a genuine text usually as close to another genuine one. Empty
 * when there are fewer clear YES texts than `minSiblings`.
 */
export function plantedSiblings(query: string, wrongAnswer: string, clearYes: readonly string[], candidates: ReadonlyMap<string, string>, params: Partial<PlantedSiblingParams> = {}): Map<string, SiblingMatch> {
  const p = { ...DEFAULT_PLANTED_SIBLINGS, ...params };
  if (!(p.minJaccard > 0 && p.minJaccard <= 1)) throw new RangeError(`minJaccard must be in (0, 1], got ${p.minJaccard}`);
  if (!Number.isInteger(p.minSiblings) || p.minSiblings < 1) throw new RangeError(`minSiblings must be an integer ≥ 1, got ${p.minSiblings}`);
  const out = new Map<string, SiblingMatch>();
  if (clearYes.length < p.minSiblings) return out;
  // The question's and the answer's own terms are left out (every text about the question shares them; a planted
  // group shares its generator's wording beyond them), and so is token salad (an optimisation attack's prefix,
  // different between siblings by design; their prose is not).
  const common = new Set([...contentTerms(query), ...contentTerms(wrongAnswer)]);
  const terms = (t: string) => new Set(contentTerms(withoutTokenSalad(t)).filter((x) => !common.has(x)));
  const seeds = clearYes.map(terms);
  const saladSeeds = p.sharedSalad ? clearYes.filter((t) => hasEdgeTokenSalad(t)).length : 0;
  const others = [...candidates].map(([id, text]) => ({ id, terms: terms(text), salad: saladSeeds >= p.minSiblings && hasEdgeTokenSalad(text) }));
  for (const c of others) {
    if (c.salad) {
      out.set(c.id, { siblings: saladSeeds, bestJaccard: Math.round(Math.max(0, ...seeds.map((x) => termJaccard(c.terms, x))) * 1000) / 1000, salad: true });
      continue;
    }
    let siblings = 0;
    let bestJaccard = 0;
    for (const s of seeds) {
      const j = termJaccard(c.terms, s);
      if (j >= p.minJaccard) siblings++;
      bestJaccard = Math.max(bestJaccard, j);
    }
    if (siblings < p.minSiblings) continue;
    const nearestOther = Math.max(0, ...others.filter((o) => o.id !== c.id).map((o) => termJaccard(c.terms, o.terms)));
    if (bestJaccard > nearestOther) out.set(c.id, { siblings, bestJaccard: Math.round(bestJaccard * 1000) / 1000 });
  }
  return out;
}
