export { normalizeText, normalizeNumberToken, rawTokens, ordinalValue, stripCitationMarkers, joinSpacedDigitGroups, dropDayOfMonth, hasMonthName } from './normalize';
export { tokenize, contentTerms, termJaccard, lightStem, softStem, splitSentences, quoteSentences } from './tokenizer';
export type { TokenizeOptions } from './tokenizer';
export { containsAnswer, answerMatches } from './answer-match';
export { ENGLISH_STOPWORDS, isStopword } from './stopwords';
export { hasEdgeTokenSalad, longestContentRun, TOKEN_SALAD_MIN_RUN, withoutTokenSalad } from './token-salad';
export { locateQuote, locateSentences, mergeSpans, spansOverlap, QUOTE_SKIP_MIN } from './locate-quote';
export type { TextSpan } from './locate-quote';
