import { ConfigError, DEV_API_KEY, loadConfig } from '../app-config';

const ROOT = '/srv/forensics';
const STRONG_KEY = 'k'.repeat(12) + '0123456789ab';
const STRONG_SECRET = 's'.repeat(16) + '0123456789abcdef';
const PROD = { NODE_ENV: 'production', API_KEYS: STRONG_KEY, FEEDBACK_TOKEN_SECRET: STRONG_SECRET };

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env, ROOT);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  return [];
}

describe('production mode (NODE_ENV=production) refuses weak deployment secrets', () => {
  it('starts with strong secrets: production flag on, JSON logs by default', () => {
    const config = loadConfig(PROD, ROOT);
    expect(config.production).toBe(true);
    expect(config.logFormat).toBe('json');
    expect(config.devApiKey).toBe(false);
  });

  it('outside production the development defaults still work (pretty logs, dev key)', () => {
    const config = loadConfig({}, ROOT);
    expect(config.production).toBe(false);
    expect(config.logFormat).toBe('pretty');
    expect(config.apiKeys).toEqual([DEV_API_KEY]);
    expect(loadConfig({ ...PROD, LOG_FORMAT: 'pretty' }, ROOT).logFormat).toBe('pretty');
  });

  it('refuses a missing API_KEYS, naming the variable', () => {
    const problems = problemsOf({ ...PROD, API_KEYS: undefined });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^API_KEYS must be set in production/);
    expect(problems[0]).toContain(DEV_API_KEY);
  });

  it.each([DEV_API_KEY, 'change-me', 'CHANGE-ME', 'changeme-please-changeme-please', 'short-key-123'])('refuses the weak API key %p (without printing it)', (key) => {
    const problems = problemsOf({ ...PROD, API_KEYS: `${STRONG_KEY},${key}` });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^API_KEYS key #2 is (a known placeholder|shorter than 24 characters)/);
    expect(problems[0]).not.toContain(key);
  });

  it('accepts a key of exactly 24 characters and refuses 23', () => {
    expect(problemsOf({ ...PROD, API_KEYS: 'a'.repeat(24) })).toEqual([]);
    expect(problemsOf({ ...PROD, API_KEYS: 'a'.repeat(23) })[0]).toContain('shorter than 24 characters');
  });

  it('refuses a missing, short or placeholder FEEDBACK_TOKEN_SECRET', () => {
    expect(problemsOf({ ...PROD, FEEDBACK_TOKEN_SECRET: undefined })).toEqual([expect.stringMatching(/^FEEDBACK_TOKEN_SECRET is not set \(NODE_ENV=production\)/)]);
    expect(problemsOf({ ...PROD, FEEDBACK_TOKEN_SECRET: 'x'.repeat(20) })).toEqual([expect.stringMatching(/^FEEDBACK_TOKEN_SECRET is shorter than 32 characters/)]);
    expect(problemsOf({ ...PROD, FEEDBACK_TOKEN_SECRET: 'change-me-change-me-change-me-change-me' })).toEqual([expect.stringMatching(/^FEEDBACK_TOKEN_SECRET is a known placeholder/)]);
  });

  it('refuses a weak METRICS_TOKEN when one is set', () => {
    expect(problemsOf({ ...PROD, METRICS_TOKEN: 'metrics' })[0]).toMatch(/^METRICS_TOKEN is shorter than 24 characters/);
    expect(problemsOf({ ...PROD, METRICS_TOKEN: 'm'.repeat(30) })).toEqual([]);
  });

  it('lists every problem at once and never prints a secret', () => {
    const e = (() => { try { loadConfig({ NODE_ENV: 'production', API_KEYS: 'change-me', FEEDBACK_TOKEN_SECRET: 'sixteen-chars-ok' }, ROOT); } catch (err) { return err as ConfigError; } })();
    expect(e?.problems).toHaveLength(2);
    expect(e?.message).toContain('API_KEYS');
    expect(e?.message).toContain('FEEDBACK_TOKEN_SECRET');
    expect(e?.message).not.toContain('sixteen-chars-ok');
    expect(e?.message).not.toMatch(/'change-me'/);
  });

  it('production rules do not apply in other modes', () => {
    expect(problemsOf({ NODE_ENV: 'development', API_KEYS: 'change-me' })).toEqual([]);
    expect(problemsOf({ NODE_ENV: 'test' })).toEqual([]);
  });
});

describe('development mode stays on this machine (issue 56 item 6)', () => {
  it('refuses a non-loopback HOST outside production, and says what to set', () => {
    for (const HOST of ['0.0.0.0', '192.168.1.20', '::', 'example.org']) {
      const problems = problemsOf({ HOST });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`HOST=${HOST.replace(/\./g, '\\.')} listens beyond this machine.*NODE_ENV=production with API_KEYS.*FEEDBACK_TOKEN_SECRET`));
    }
  });

  it('accepts loopback addresses, production mode, and EXPOSE_DEVELOPMENT=true', () => {
    for (const HOST of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) expect(problemsOf({ HOST })).toEqual([]);
    expect(problemsOf({ ...PROD, HOST: '0.0.0.0' })).toEqual([]);
    expect(problemsOf({ HOST: '0.0.0.0', EXPOSE_DEVELOPMENT: 'true' })).toEqual([]);
  });
});

