import { verifyWebhookSignature, signWebhook } from '@forensics/core';
import { webhookRetryDelayMs } from '../backoff';
import { SecretBox } from '../secret-box';
import { embeddedIpv4, ipv6Groups, isBlockedAddress } from '../url-guard';

describe('isBlockedAddress (outbound webhook rule)', () => {
  it.each([
    '127.0.0.1', '127.8.9.10', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.255', '0.0.0.0',
    '224.0.0.1', '255.255.255.255', '::1', '::', 'fd00::1', 'fc12::1', 'fe80::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip',
  ])('refuses %s', (a) => expect(isBlockedAddress(a)).toBe(true));

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8'])('allows %s', (a) =>
    expect(isBlockedAddress(a)).toBe(false));

  // Issue 56, item 4: IPv6 forms that carry an IPv4 address are judged by that address (or refused wholesale).
  it.each([
    ['::127.0.0.1', 'IPv4-compatible, dotted'],
    ['::7f00:1', 'IPv4-compatible, hex (127.0.0.1)'],
    ['::a00:1', 'IPv4-compatible (10.0.0.1)'],
    ['::a9fe:a9fe', 'IPv4-compatible (169.254.169.254)'],
    ['::ffff:7f00:1', 'IPv4-mapped, hex'],
    ['::ffff:0:7f00:1', 'IPv4-translated (SIIT, RFC 2765)'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::', '6to4 of 169.254.169.254'],
    ['2002:c0a8:101:1::1', '6to4 of 192.168.1.1'],
    ['64:ff9b::7f00:1', 'NAT64 well-known prefix'],
    ['64:ff9b::808:808', 'NAT64 well-known prefix, even of a public address'],
    ['64:ff9b:1::7f00:1', 'NAT64 local-use prefix (RFC 8215)'],
    ['64:ff9b:1:ffff::1', 'NAT64 local-use prefix, any position'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ])('refuses %s (%s)', (a) => expect(isBlockedAddress(a)).toBe(true));

  it.each(['2002:808:808::1', '2002:5db8:d70e::1', '2001:4860:4860::8888', '64:ff9a::7f00:1'])('allows %s (a public address, or none embedded)', (a) =>
    expect(isBlockedAddress(a)).toBe(false));
});

describe('ipv6Groups / embeddedIpv4', () => {
  it('expands every textual form to eight groups', () => {
    expect(ipv6Groups('::127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0, 0x7f00, 1]);
    expect(ipv6Groups('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('2002:7F00:0001:0:0:0:0:1')).toEqual([0x2002, 0x7f00, 1, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('1:0:0:2::3')).toEqual([1, 0, 0, 2, 0, 0, 0, 3]);
    expect(ipv6Groups('127.0.0.1')).toBeNull();
    expect(ipv6Groups('fe80::1%eth0')).toBeNull();
  });

  it('reads the IPv4 address at its fixed place, and none elsewhere', () => {
    expect(embeddedIpv4(ipv6Groups('::7f00:1')!)).toBe('127.0.0.1');
    expect(embeddedIpv4(ipv6Groups('::ffff:a9fe:a9fe')!)).toBe('169.254.169.254');
    expect(embeddedIpv4(ipv6Groups('::ffff:0:c0a8:101')!)).toBe('192.168.1.1');
    expect(embeddedIpv4(ipv6Groups('2002:c0a8:101:5::1')!)).toBe('192.168.1.1');
    expect(embeddedIpv4(ipv6Groups('2606:4700::7f00:1')!)).toBeNull();
  });
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
