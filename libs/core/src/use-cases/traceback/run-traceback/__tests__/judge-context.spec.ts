import { ScriptedJudge } from '../../../../testing';
import { traceReport } from './report-harness';

/**
 * A served answer may be a sentence quoted from a text of the first round. The texts judged in a later round read it
 * against the texts the user was served (`context`: the first round's), not against the round's own batch (`peers`),
 * so the offline judge finds the quoted sentence's source and reads the answer as it did in the first round (issue 33).
 */
describe('the traceback gives the judge the served texts as context', () => {
  it('every request of the event carries the first round\'s texts as context; a later round\'s batch are its peers', async () => {
    const planted = Array.from({ length: 5 }, (_, i) => `Velmora harbor mural fact ${i}: the mural was painted by Orla Venn.`);
    const genuine = Array.from({ length: 6 }, (_, i) => `Velmora harbor guide ${i}: the ferries leave at noon from the quay.`);
    const judge = new ScriptedJudge((req) => (req.text.includes('Orla Venn') ? 'YES' : 'NO'));
    const { out } = await traceReport({ texts: [...planted, ...genuine], judge, query: 'who painted the velmora harbor mural', wrongAnswer: 'Orla Venn' });
    expect(out.rounds).toBeGreaterThan(1);
    const first = new Set(judge.requests.slice(0, 5).map((r) => r.text));
    const later = judge.requests.slice(5);
    expect(later.length).toBeGreaterThan(0);
    for (const r of judge.requests) expect(new Set(r.context)).toEqual(first);
    // A later round's peers are its own batch, none of the served texts.
    for (const r of later) expect(r.peers?.some((p) => first.has(p))).toBe(false);
  });
});
