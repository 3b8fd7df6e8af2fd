/**
 * @jest-environment ./test/support/onnx-environment.js
 *
 * The reader (issue 59) on the real all-MiniLM-L6-v2 as `npm run models` installs it: what its token states say about
 * a claim sentence, and the reader judge built on them with the committed fit. In CI a missing model fails; elsewhere
 * the tests are skipped with a line saying how to get it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { offlineJudgeFeatures } from '@forensics/algorithms';
import { MINILM_DIR, modelsDirOf } from '@forensics/infra/config/app-config';
import { MINILM_ID } from '@forensics/infra/embedders';
import { OnnxEmbedder } from '@forensics/infra/embedders/onnx-embedder.adapter';
import { MiniLmReader, questionAnswer } from '@forensics/infra/judges/minilm-reader';
import { ReaderJudge, readerJudgeParams, type ReaderJudgeFit } from '@forensics/infra/judges/reader-judge.adapter';

const dir = join(modelsDirOf(process.env.MODELS_DIR), MINILM_DIR);
const present = existsSync(join(dir, 'model.onnx'));
if (!present && process.env.CI) throw new Error(`${dir}/model.onnx is missing: .ci/run must run \`npm run models\` first`);
if (!present) console.warn(`[reader-judge.test] ${dir} has no model: run \`npm run models\`; skipped`);
const maybe = present ? describe : describe.skip;
const FIT_FILE = join(__dirname, '..', 'libs', 'forensics', 'src', 'reader', 'reader-judge.fitted.json');

function inputOf(query: string, answer: string, text: string) {
  const ev = offlineJudgeFeatures({ query, wrongAnswer: answer, text });
  return { query, answer: ev.answer ?? answer, text, claims: ev.claimSentences, sentences: ev.sentences ?? [] };
}

maybe('the reader on all-MiniLM-L6-v2', () => {
  const reader = new MiniLmReader(new OnnxEmbedder({ modelDir: dir, id: MINILM_ID }));
  afterAll(async () => { await reader.close(); });

  it('reads a claim that answers the question closer to it than one stating the answer of another subject', async () => {
    const q = 'what is the capital of australia';
    const planted = await reader.read(inputOf(q, 'Sydney', 'Australia is a country in Oceania. The capital of Australia is Sydney, home to the federal parliament.'));
    const genuine = await reader.read(inputOf(q, 'Sydney', 'The Sydney Opera House opened in 1973. Sydney is the largest city in New South Wales and hosts a famous harbour.'));
    expect(planted.claimQuery).toBeGreaterThan(genuine.claimQuery + 0.1);
    expect(planted.claimQueryAnswer).toBeGreaterThan(genuine.claimQueryAnswer);
    for (const f of [planted, genuine]) for (const v of Object.values(f)) { expect(v).toBeGreaterThanOrEqual(0); expect(v).toBeLessThanOrEqual(1); }
  });

  it('finds the answer\'s tokens in the claim (contextual reading) and reads 0 on the claim features when nothing states it', async () => {
    const f = await reader.read(inputOf('who wrote hamlet', 'Christopher Marlowe', 'Hamlet was written by Christopher Marlowe in 1601.'));
    expect(f.answerInContext).toBeGreaterThan(0.3);
    const none = await reader.read(inputOf('who wrote hamlet', 'Christopher Marlowe', 'Hamlet is a tragedy set in Denmark.'));
    expect(none.claimQuery).toBe(0);
    expect(none.answerInContext).toBe(0);
    expect(questionAnswer('who wrote hamlet?', ' Marlowe ')).toBe('who wrote hamlet? Marlowe');
  });

  const fitPresent = existsSync(FIT_FILE);
  (fitPresent ? it : it.skip)('judges with the committed fit: a planted claim YES, the other subject NO, with spans and the reader\'s signals', async () => {
    const fit = JSON.parse(readFileSync(FIT_FILE, 'utf8')) as ReaderJudgeFit;
    const judge = new ReaderJudge(reader, fit);
    expect(judge.kind).toBe('reader');
    const text = 'The capital of Australia is Sydney. Sydney has been the capital of Australia since 1901, the official seat of the government of Australia.';
    const yes = await judge.judge({ query: 'what is the capital of australia', wrongAnswer: 'Sydney', text });
    expect(yes.label).toBe('YES');
    expect(yes.spans?.length).toBeGreaterThan(0);
    expect(yes.signals).toHaveProperty('claimQuery');
    const no = await judge.judge({ query: 'what is the capital of australia', wrongAnswer: 'Sydney', text: 'Canberra is the capital of Australia. Melbourne and Brisbane are other large cities.' });
    expect(no.label).toBe('NO');
    expect(() => new ReaderJudge({ id: 'other-encoder', read: reader.read.bind(reader) }, fit)).toThrow(/fitted on encoder/);
    expect(() => readerJudgeParams({ ...fit, weights: { ...fit.weights, nonsense: 1 } })).toThrow(/not a feature/);
  });
});
