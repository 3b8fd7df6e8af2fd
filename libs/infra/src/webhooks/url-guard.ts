import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ValidationError, type WebhookUrlGuard } from '@forensics/core';

/**
 * Outbound URL rules for webhooks (SSRF guard): https only, no credentials in the URL, and every
 * address the host resolves to must be public — no loopback, RFC 1918 private, link-local (cloud
 * metadata 169.254.169.254), CGNAT, unique-local / site-local / link-local IPv6, multicast,
 * unspecified or reserved ranges. An IPv6 address that carries an IPv4 address at a fixed place is
 * judged by that IPv4 address (see `embeddedIpv4`); the NAT64 and Teredo prefixes, whose IPv4 part
 * is reached through a translator or relay of someone's network, are refused whatever they carry.
 * `allowPrivate` (WEBHOOK_ALLOW_PRIVATE=true) lifts the address rule and allows http, for
 * receivers on the same network (and tests). The transport checks the address again at connect
 * time (DNS rebinding). Ranges are matched with node's net.BlockList.
 */
export const BLOCKED_RANGES = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24],
  ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED_RANGES.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  // (The forms that embed an IPv4 address at a fixed place are decoded by isBlockedAddress, not listed.)
  ['::', 128], ['::1', 128], ['100::', 64], ['2001:2::', 48], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
  // NAT64 (RFC 6052 well-known, RFC 8215 local-use: where the IPv4 part sits depends on the operator's
  // prefix length) and Teredo (RFC 4380, a relay's tunnel): refused whatever IPv4 address they carry.
  ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['2001::', 32],
] as const) BLOCKED_RANGES.addSubnet(net, prefix, 'ipv6');

/**
 * The eight 16-bit groups of an IPv6 literal, or null if it is not one. Parsed by the WHATWG URL
 * parser (it takes every textual form, `::127.0.0.1` included, and serialises the address in one
 * canonical form: lower-case hex groups, the longest run of zero groups as `::`, no dotted tail).
 */
export function ipv6Groups(address: string): number[] | null {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head, tail] = canonical.includes('::') ? canonical.split('::') : [canonical, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.length === 8 ? groups.map((g) => parseInt(g, 16)) : null;
}

/**
 * The IPv4 address an IPv6 address carries at a fixed place, or null: IPv4-compatible `::a.b.c.d`
 * (RFC 4291, deprecated; `::` and `::1` are `0.0.0.0` and `0.0.0.1`, refused as such), IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d` (RFC 2765) and 6to4 `2002:aabb:ccdd::/48`
 * (RFC 3056). A connection to such an address reaches, or is routed on to, that IPv4 host.
 */
export function embeddedIpv4(groups: readonly number[]): string | null {
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zero(0, 5) && (groups[5] === 0 || groups[5] === 0xffff)) return v4(groups[6], groups[7]);
  if (zero(0, 4) && groups[4] === 0xffff && groups[5] === 0) return v4(groups[6], groups[7]);
  if (groups[0] === 0x2002) return v4(groups[1], groups[2]);
  return null;
}

/**
 * True when `address` (an IP literal) is in a range webhooks may not reach; anything that is not an
 * IP literal is refused. An IPv6 address is refused when its own range is, or when the IPv4 address
 * it carries (`embeddedIpv4`) is: `::7f00:1`, `::ffff:127.0.0.1` and `2002:7f00:1::1` are 127.0.0.1.
 */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED_RANGES.check(address, 'ipv4');
  if (family !== 6) return true;
  const groups = ipv6Groups(address);
  if (!groups) return true;
  const v4 = embeddedIpv4(groups);
  return BLOCKED_RANGES.check(address, 'ipv6') || (v4 !== null && BLOCKED_RANGES.check(v4, 'ipv4'));
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
