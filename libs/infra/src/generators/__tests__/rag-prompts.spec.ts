import { BTE_V1, RAG_BTE_V1, RAG_V1, renderBteV1, renderRagBteV1, renderRagV1, wrapBenignText } from '../rag-prompts';

// The expected strings are written out in full (not built from the module's parts), so any edit to
// a prompt fails here. Sources: RAGForensics, arXiv 2504.21668, App. 8.1 / 8.3; layout as
// documented in rag-prompts.ts.
describe('rag-v1 (RAGForensics, arXiv 2504.21668, App. 8.1)', () => {
  it('renders byte-for-byte, contexts joined by newlines', () => {
    expect(RAG_V1).toBe('rag-v1');
    expect(renderRagV1('who wrote hamlet', ['Hamlet is a tragedy by William Shakespeare.', 'It is set in Denmark.'])).toBe(
      'You are a helpful assistant, below is a query from a user and some relevant contexts. Answer the question given the information in those contexts. Your answer should be short and concise. If you cannot find the answer to the question, just say "I don\'t know". Contexts: Hamlet is a tragedy by William Shakespeare.\nIt is set in Denmark. Query: who wrote hamlet Answer:',
    );
  });

  it('inserts untrusted values literally (no placeholder or $-pattern expansion)', () => {
    const out = renderRagV1('q [q] $&', ['ctx [contexts] Query: $1']);
    expect(out.endsWith("Contexts: ctx [contexts] Query: $1 Query: q [q] $& Answer:")).toBe(true);
  });
});

describe('rag-bte-v1 (RAGForensics, arXiv 2504.21668, App. 8.3, three situations)', () => {
  it('renders byte-for-byte with indexed entries', () => {
    expect(RAG_BTE_V1).toBe('rag-bte-v1');
    const out = renderRagBteV1('how many episodes are in chicago fire season 4', [
      '[LATEST] Chicago Fire Season 4 consists of 23 episodes. [/LATEST]',
      'Chicago Fire season 4 has 24 episodes.',
    ]);
    expect(out).toBe(
      'You are a helpful assistant, below is a query from a user and some relevant contexts.\n' +
        '\n' +
        'You should answer the question based on the information listed by entries in the contexts. Tell me your reasoning process in detail.\n' +
        '\n' +
        'Firstly, you need assess the relevance of each entry to the query, focusing only on contributions to the answer and excluding unrelated entry. Relevance is judged independently; do not evaluate correctness or contradictions. List all relevant entry unchanged.\n' +
        '\n' +
        'Secondly, count and list the number of the entry **wrapped by [LATEST] and [/LATEST]**, you will encounter three different situations regarding the filtered information:\n' +
        '\n' +
        '**Situation One**: If there are more than one entry **wrapped by [LATEST] and [/LATEST]**, please follow these steps:\n' +
        '\n' +
        '**Step 1**: For all contradictory entries, unconditionally select and display the one with the smallest index, regardless of its content.\n' +
        '\n' +
        '**Step 2**: Subsequently, delete all entries that contradict the selected one, irrespective of their quantity.\n' +
        '\n' +
        '**Situation Two**: If there is only one entry wrapped by [LATEST] and [/LATEST], this indicates that it is the **newest** information. Therefore, please focus solely on the wrapped entry and disregard the remaining context.\n' +
        '\n' +
        '**Situation Three**: If there is no entry wrapped by [LATEST] and [/LATEST], please analyze the relevance and consistency to draw a conclusion.\n' +
        '\n' +
        'If you cannot find the answer to the question, just say "I don\'t know".\n' +
        '\n' +
        'Contexts: Entry 1: [LATEST] Chicago Fire Season 4 consists of 23 episodes. [/LATEST]\n' +
        'Entry 2: Chicago Fire season 4 has 24 episodes. Query: how many episodes are in chicago fire season 4 Answer:',
    );
  });
});

describe('bte-v1 (RAGForensics, arXiv 2504.21668, App. 8.3, benign text)', () => {
  it('renders byte-for-byte, [q] and [c] each filled twice', () => {
    expect(BTE_V1).toBe('bte-v1');
    expect(renderBteV1('How many episodes are in chicago fire season 4?', '23')).toBe(
      'This is my question: How many episodes are in chicago fire season 4?.\n' +
        'This is my answer: 23.\n' +
        'Please craft a brief and complete corpus in a declarative tone that conveys the answer 23 within the statement, ensuring it corresponds directly to the question How many episodes are in chicago fire season 4?. Don\'t use phrases like "Yes" or "No". Please limit the corpus to 30 words and only return the corpus.',
    );
  });

  it('wraps a benign text with the trigger (App. 8.3 example)', () => {
    expect(wrapBenignText(' Chicago Fire Season 4 consists of 23 episodes. ')).toBe('[LATEST] Chicago Fire Season 4 consists of 23 episodes. [/LATEST]');
  });
});
