import { verifyWebhookSignature, signWebhook } from '@forensics/core';
import { webhookRetryDelayMs } from '../backoff';
import { SecretBox } from '../secret-box';
import { isBlockedAddress } from '../url-guard';

describe('isBlockedAddress (outbound webhook rule)', () => {
  it.each([
    '127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.255', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '::1', '::', 'fd00::1', 'fc12::1', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip',
  ])('refuses %s', (a) => expect(isBlockedAddress(a)).toBe(true));

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8'])('allows %s', (a) =>
    expect(isBlockedAddress(a)).toBe(false));
});

describe('webhookRetryDelayMs (equal jitter)', () => {
  it('stays within [cap/2, cap] with cap = base * 2^(n-1), so each delay is at least the largest previous one', () => {
    expect([1, 2, 3, 4].map((n) => webhookRetryDelayMs(n, 1000, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((n) => webhookRetryDelayMs(n, 1000, () => 1))).toEqual([1000, 2000, 4000, 8000]);
    expect(webhookRetryDelayMs(2, 1000, () => 0.5)).toBe(1500);
  });
});

describe('SecretBox', () => {
  it('round-trips, uses a fresh IV each time, and refuses a tampered or foreign ciphertext', () => {
    const box = new SecretBox('m'.repeat(32));
    const a = box.seal('whsec_abc');
    expect(a).not.toContain('whsec_abc');
    expect(box.seal('whsec_abc')).not.toBe(a);
    expect(box.open(a)).toBe('whsec_abc');
    const parts = a.split('.');
    parts[3] = Buffer.from('whsec_abd').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => new SecretBox('n'.repeat(32)).open(a)).toThrow();
  });
});

describe('webhook signature', () => {
  it('verifies its own signature within the window only, and only for the same body and secret', () => {
    const body = '{"id":"1","type":"quarantine.created"}';
    const header = signWebhook('s3cret', 1_700_000_000, body);
    expect(header).toMatch(/^t=1700000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature('s3cret', header, body, 1_700_000_100)).toBe(true);
    expect(verifyWebhookSignature('s3cret', header, body, 1_700_000_301)).toBe(false);
    expect(verifyWebhookSignature('s3cret', header, `${body} `, 1_700_000_000)).toBe(false);
    expect(verifyWebhookSignature('other', header, body, 1_700_000_000)).toBe(false);
    expect(verifyWebhookSignature('s3cret', 't=x,v1=zz', body, 1_700_000_000)).toBe(false);
  });
});
