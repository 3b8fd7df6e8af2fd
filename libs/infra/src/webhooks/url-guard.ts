import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ValidationError, type WebhookUrlGuard } from '@forensics/core';

/**
 * Outbound URL rules for webhooks (SSRF guard): https only, no credentials in the URL, and every
 * address the host resolves to must be public — no loopback, RFC 1918 private, link-local (cloud
 * metadata 169.254.169.254), CGNAT, unique-local / link-local IPv6, multicast, unspecified or
 * reserved ranges. `allowPrivate` (WEBHOOK_ALLOW_PRIVATE=true) lifts the address rule and allows
 * http, for receivers on the same network (and tests). The transport checks the address again at
 * connect time (DNS rebinding). Ranges are matched with node's net.BlockList.
 */
export const BLOCKED_RANGES = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24],
  ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED_RANGES.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  // (IPv4-mapped ::ffff:0:0/96 is not listed: BlockList matches it against the IPv4 ranges by itself.)
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) BLOCKED_RANGES.addSubnet(net, prefix, 'ipv6');

/** True when `address` (an IP literal) is in a range webhooks may not reach. IPv4-mapped IPv6 is checked as IPv4. */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED_RANGES.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (!family) return true;
  return BLOCKED_RANGES.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class DnsWebhookUrlGuard implements WebhookUrlGuard {
  constructor(private readonly allowPrivate: boolean) {}

  async check(raw: string, field: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ValidationError(`${field} must be an absolute URL (https://…)`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.allowPrivate)) {
      throw new ValidationError(`${field} must use https${this.allowPrivate ? ' or http' : ''} (http only with WEBHOOK_ALLOW_PRIVATE=true)`);
    }
    if (url.username || url.password) throw new ValidationError(`${field} must not contain credentials`);
    if (this.allowPrivate) return;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new ValidationError(`${field} host ${host.slice(0, 80)} does not resolve`);
    }
    const blocked = addresses.find(isBlockedAddress);
    if (blocked !== undefined || !addresses.length) {
      throw new ValidationError(`${field} resolves to a loopback, private, link-local or reserved address (${blocked ?? 'none'}); webhooks reach public addresses only unless WEBHOOK_ALLOW_PRIVATE=true`);
    }
  }
}
