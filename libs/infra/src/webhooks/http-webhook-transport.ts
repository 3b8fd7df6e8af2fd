import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookRequest, WebhookResponse, WebhookTransport } from '@forensics/core';
import { isBlockedAddress } from './url-guard';

/** How much of a receiver's response body is read (then the connection is dropped). */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs one webhook with node's http/https client. Redirects are not followed (a 3xx is a failed
 * attempt: the URL was validated, its redirect target was not). Unless private addresses are
 * allowed, the connection's own DNS lookup refuses blocked addresses, so a host that resolved to a
 * public address when the endpoint was saved cannot be re-pointed at an internal one (DNS
 * rebinding): the address checked is the address connected to. The whole attempt (connect, send,
 * response) is bounded by `timeoutMs`. Never throws.
 */
export class HttpWebhookTransport implements WebhookTransport {
  constructor(private readonly allowPrivate: boolean) {}

  send(req: WebhookRequest): Promise<WebhookResponse> {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    return new Promise<WebhookResponse>((resolve) => {
      let done = false;
      const finish = (r: Omit<WebhookResponse, 'durationMs'>) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({ ...r, durationMs: ms() });
      };
      let url: URL;
      try {
        url = new URL(req.url);
      } catch {
        return finish({ statusCode: null, error: 'invalid URL' });
      }
      const guardedLookup: LookupFunction = (hostname, options, callback) => {
        dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
          if (err) return callback(err, '', 4);
          const list = addresses as unknown as LookupAddress[];
          const bad = this.allowPrivate ? undefined : list.find((a) => isBlockedAddress(a.address));
          if (bad) return callback(Object.assign(new Error(`refused: ${hostname} resolves to a blocked address (${bad.address})`), { code: 'EBLOCKED' }), '', 4);
          if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
          callback(null, list[0].address, list[0].family);
        });
      };
      const opts: RequestOptions = {
        method: 'POST', headers: { ...req.headers, 'Content-Length': Buffer.byteLength(req.body) }, lookup: guardedLookup,
        agent: false,
      };
      const make = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : null;
      if (!make) return finish({ statusCode: null, error: `unsupported protocol ${url.protocol}` });
      const timer = setTimeout(() => {
        request.destroy(new Error(`timed out after ${req.timeoutMs} ms`));
      }, req.timeoutMs);
      // An IP-literal host skips DNS: check it here.
      const literal = url.hostname.replace(/^\[|\]$/g, '');
      if (!this.allowPrivate && /^[\d.]+$|:/.test(literal) && isBlockedAddress(literal)) {
        clearTimeout(timer);
        return finish({ statusCode: null, error: `refused: ${literal} is a blocked address` });
      }
      const request = make(url, opts, (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        const end = () => finish({ statusCode: res.statusCode ?? null, error: null });
        res.on('end', end);
        res.on('close', end);
        res.on('error', end);
      });
      request.on('error', (e) => finish({ statusCode: null, error: e.message.slice(0, 500) }));
      request.end(req.body);
    });
  }
}
