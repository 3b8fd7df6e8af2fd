import { createHmac } from 'node:crypto';
import { ConfigError, loadConfig } from '../app-config';
import { identitySettingsFor } from '../../nest/adapters';

const ROOT = '/srv/forensics';
const PROD = { NODE_ENV: 'production', API_KEYS: 'k'.repeat(12) + '0123456789ab', FEEDBACK_TOKEN_SECRET: 's'.repeat(16) + '0123456789abcdef' };

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env, ROOT);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  return [];
}

describe('identity configuration (issue 11)', () => {
  it('SESSION_TTL_MINUTES defaults to 480 and is range-checked; API_KEY_PEPPER is secret and at least 32 characters', () => {
    expect(loadConfig({}, ROOT).sessionTtlMinutes).toBe(480);
    expect(loadConfig({ SESSION_TTL_MINUTES: '15' }, ROOT).sessionTtlMinutes).toBe(15);
    expect(problemsOf({ SESSION_TTL_MINUTES: '0' })).toEqual(["SESSION_TTL_MINUTES must be an integer in [1, 10080], got '0'"]);
    expect(problemsOf({ API_KEY_PEPPER: 'short-pepper' })).toEqual(['API_KEY_PEPPER must be a string of at least 32 characters, got (hidden)']);
  });

  it('production refuses a placeholder pepper (never printing it), and accepts none (derived)', () => {
    expect(problemsOf({ ...PROD, API_KEY_PEPPER: 'change-me-change-me-change-me-change-me' })).toEqual([expect.stringMatching(/^API_KEY_PEPPER is a known placeholder \(NODE_ENV=production\)/)]);
    expect(problemsOf(PROD)).toEqual([]);
  });

  it('the pepper is API_KEY_PEPPER, else an HMAC of the feedback-token secret (same for the API and the CLI)', () => {
    const pepper = 'p'.repeat(40);
    expect(identitySettingsFor(loadConfig({ API_KEY_PEPPER: pepper }, ROOT), 'token-secret').keyPepper).toBe(pepper);
    const derived = identitySettingsFor(loadConfig({}, ROOT), 'token-secret');
    expect(derived.keyPepper).toBe(createHmac('sha256', 'token-secret').update('forensics/api-key-pepper/v1').digest('base64url'));
    expect(derived.keyPepper).not.toContain('token-secret');
    expect(identitySettingsFor(loadConfig({}, ROOT), 'other-secret').keyPepper).not.toBe(derived.keyPepper);
    expect(derived.sessionTtlMs).toBe(480 * 60_000);
  });
});
