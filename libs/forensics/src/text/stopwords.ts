/**
 * A small English stopword list (function words only: articles, pronouns, auxiliaries,
 * prepositions, conjunctions, question words). Content-bearing words such as numbers,
 * negations ("not", "no", "never") and quantifiers ("both", "same") are deliberately NOT
 * stopwords: the offline judge needs them for polarity and for numeric answers.
 */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'and', 'or', 'but', 'if', 'then', 'than', 'so', 'as', 'of', 'at', 'by', 'for',
  'with', 'about', 'against', 'between', 'into', 'through', 'during', 'before', 'after', 'above',
  'below', 'to', 'from', 'up', 'down', 'in', 'out', 'on', 'off', 'over', 'under', 'again',
  'further', 'once', 'here', 'there', 'when', 'where', 'why', 'how', 'all', 'any', 'each', 'few',
  'more', 'most', 'other', 'some', 'such', 'only', 'own', 'too', 'very', 'can', 'will', 'just',
  'should', 'would', 'could', 'may', 'might', 'must', 'shall', 'now', 'i', 'me', 'my', 'myself',
  'we', 'our', 'ours', 'ourselves', 'you', 'your', 'yours', 'yourself', 'yourselves', 'he', 'him',
  'his', 'himself', 'she', 'her', 'hers', 'herself', 'it', 'its', 'itself', 'they', 'them',
  'their', 'theirs', 'themselves', 'what', 'which', 'who', 'whom', 'whose', 'this', 'that',
  'these', 'those', 'am', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'have', 'has', 'had',
  'having', 'do', 'does', 'did', 'doing', 'also', 'while', 'because', 'until', 's', 't', 'd',
  'll', 'm', 're', 've', 'get', 'got', 'whats',
]);

/** True if `token` (already normalised, lower case) is an English stopword. */
export function isStopword(token: string): boolean {
  return ENGLISH_STOPWORDS.has(token);
}
