import { OFFLINE_JUDGE_MODEL } from '@forensics/algorithms';
import { loadConfig } from '../app-config';
import { judgeLabel } from '../judge-label';

describe('judgeLabel', () => {
  it('names the offline judge by its own model id, never by JUDGE_MODEL', () => {
    const config = loadConfig({ JUDGE: 'offline' }, '/srv/forensics');
    const label = judgeLabel(config.judge);
    expect(label).toBe(`offline (${OFFLINE_JUDGE_MODEL}, no LLM)`);
    expect(label).not.toContain(config.judge.model);
  });

  it('names an LLM judge by its kind and model', () => {
    const config = loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: 'k', JUDGE_MODEL: 'llama-3.1-8b' }, '/srv/forensics');
    expect(judgeLabel(config.judge)).toBe('openai:llama-3.1-8b');
  });
});
