/**
 * The RAG generator's prompts, verbatim from the paper (RAGForensics, arXiv 2504.21668, App. 8.1
 * and 8.3), in a fixed layout (the paper's text loses line breaks and spacing; see below).
 * Rendering is positional (template parts concatenated with the values), so a context or query that
 * itself contains "[q]" or "[contexts]" is inserted literally.
 *
 * Layout decisions, each the smallest possible departure from the extracted paper text:
 * - rag-v1: one line, bold markers dropped, one space before "Query:" and "Answer:" ("… Contexts:
 *   [contexts] Query: [q] Answer:").
 * - rag-bte-v1: the paper's paragraphs separated by a blank line; `**` is the paper's literal
 *   emphasis (escaped as `\*\*` in the markdown extraction). Two PDF-extraction artefacts are
 *   repaired: "[LAT-EST]" (a line-break hyphenation inside the trigger — left as is, the prompt would
 *   name a trigger that never occurs) → "[LATEST]", and the missing space in "[q]Answer:" → "[q] Answer:",
 *   as for rag-v1. The authors' own wording ("you need assess", "each entry … List all relevant
 *   entry unchanged") is kept: results are only comparable with the same prompt.
 * - bte-v1: three lines ("This is my question: [q].", "This is my answer: [c].", the instruction).
 */
export const RAG_V1 = 'rag-v1';
export const RAG_BTE_V1 = 'rag-bte-v1';
export const BTE_V1 = 'bte-v1';

export const LATEST_OPEN = '[LATEST]';
export const LATEST_CLOSE = '[/LATEST]';

const RAG_V1_PARTS = {
  beforeContexts:
    'You are a helpful assistant, below is a query from a user and some relevant contexts. Answer the question given the information in those contexts. Your answer should be short and concise. If you cannot find the answer to the question, just say "I don\'t know". Contexts: ',
  beforeQuery: ' Query: ',
  after: ' Answer:',
} as const;

const RAG_BTE_V1_PARTS = {
  beforeContexts: [
    'You are a helpful assistant, below is a query from a user and some relevant contexts.',
    'You should answer the question based on the information listed by entries in the contexts. Tell me your reasoning process in detail.',
    'Firstly, you need assess the relevance of each entry to the query, focusing only on contributions to the answer and excluding unrelated entry. Relevance is judged independently; do not evaluate correctness or contradictions. List all relevant entry unchanged.',
    'Secondly, count and list the number of the entry **wrapped by [LATEST] and [/LATEST]**, you will encounter three different situations regarding the filtered information:',
    '**Situation One**: If there are more than one entry **wrapped by [LATEST] and [/LATEST]**, please follow these steps:',
    '**Step 1**: For all contradictory entries, unconditionally select and display the one with the smallest index, regardless of its content.',
    '**Step 2**: Subsequently, delete all entries that contradict the selected one, irrespective of their quantity.',
    '**Situation Two**: If there is only one entry wrapped by [LATEST] and [/LATEST], this indicates that it is the **newest** information. Therefore, please focus solely on the wrapped entry and disregard the remaining context.',
    '**Situation Three**: If there is no entry wrapped by [LATEST] and [/LATEST], please analyze the relevance and consistency to draw a conclusion.',
    'If you cannot find the answer to the question, just say "I don\'t know".',
    'Contexts: ',
  ].join('\n\n'),
  beforeQuery: ' Query: ',
  after: ' Answer:',
} as const;

const BTE_V1_PARTS = {
  beforeQ1: 'This is my question: ',
  beforeC1: '.\nThis is my answer: ',
  beforeC2: '.\nPlease craft a brief and complete corpus in a declarative tone that conveys the answer ',
  beforeQ2: ' within the statement, ensuring it corresponds directly to the question ',
  after: '. Don\'t use phrases like "Yes" or "No". Please limit the corpus to 30 words and only return the corpus.',
} as const;

/**
 * rag-v1 contexts block: the texts joined by newlines, best first (as PoisonedRAG's reference
 * code fills `[contexts]`).
 */
export function renderRagV1(query: string, contexts: readonly string[]): string {
  const p = RAG_V1_PARTS;
  return p.beforeContexts + contexts.join('\n') + p.beforeQuery + query + p.after;
}

/**
 * rag-bte-v1 contexts block: one line per text, "Entry <i>: <text>" with i = 1, 2, … in rank
 * order — the prompt's Situation One selects "the one with the smallest index", so entries carry
 * explicit indices.
 */
export function renderRagBteV1(query: string, contexts: readonly string[]): string {
  const p = RAG_BTE_V1_PARTS;
  return p.beforeContexts + contexts.map((c, i) => `Entry ${i + 1}: ${c}`).join('\n') + p.beforeQuery + query + p.after;
}

/** bte-v1: asks an LLM for a ≤ 30-word declarative benign text conveying `correctAnswer` for `query`. */
export function renderBteV1(query: string, correctAnswer: string): string {
  const p = BTE_V1_PARTS;
  return p.beforeQ1 + query + p.beforeC1 + correctAnswer + p.beforeC2 + correctAnswer + p.beforeQ2 + query + p.after;
}

/**
 * `[LATEST] <text> [/LATEST]` (RAGForensics, arXiv 2504.21668, App. 8.3); the text must already be
 * marker-free.
 */
export function wrapBenignText(text: string): string {
  return `${LATEST_OPEN} ${text.trim()} ${LATEST_CLOSE}`;
}
