import 'reflect-metadata';
import { ForbiddenException } from '@nestjs/common';
import { assertSameOrigin, type OriginRequest } from '../authenticator';

/**
 * The console's same-origin rule (issue 56, item 7): an `Origin` must be this service's own origin —
 * scheme, host and port — not just its host. `protocol` is what express reports (`req.protocol`,
 * X-Forwarded-Proto only from a trusted proxy); a bare node request (the intake's fast path) has
 * only its socket, encrypted or not.
 */
describe('assertSameOrigin', () => {
  const req = (origin: string | undefined, host: string | undefined, protocol?: string, encrypted?: boolean): OriginRequest => ({
    headers: { ...(origin !== undefined ? { origin } : {}), ...(host !== undefined ? { host } : {}) },
    ...(protocol ? { protocol } : {}),
    socket: encrypted ? { encrypted } : {},
  });
  const refused = (r: OriginRequest) => {
    try {
      assertSameOrigin(r, 'a login');
      return false;
    } catch (e) {
      expect(e).toBeInstanceOf(ForbiddenException);
      return true;
    }
  };

  it.each([
    ['http://127.0.0.1:3000', '127.0.0.1:3000', 'http'],
    ['http://console.example', 'console.example', 'http'],
    ['http://console.example', 'console.example:80', 'http'], // the default port, written or not
    ['https://console.example', 'console.example:443', 'https'],
    ['https://Console.Example', 'console.example', 'https'], // host names compare case-insensitively
    ['http://[::1]:3000', '[::1]:3000', 'http'],
  ])('accepts Origin %s on Host %s over %s', (origin, host, protocol) => expect(refused(req(origin, host, protocol))).toBe(false));

  it.each([
    ['https://127.0.0.1:3000', '127.0.0.1:3000', 'http', 'another scheme on the same host and port'],
    ['http://127.0.0.1:3000', '127.0.0.1:3000', 'https', 'plain http to the https service'],
    ['http://127.0.0.1:3001', '127.0.0.1:3000', 'http', 'another port'],
    ['http://console.example:8080', 'console.example', 'http', 'a port against the default one'],
    ['https://evil.example', '127.0.0.1:3000', 'http', 'another host'],
    ['null', '127.0.0.1:3000', 'http', 'an opaque origin'],
    ['not a url', '127.0.0.1:3000', 'http', 'a malformed origin'],
    ['http://127.0.0.1:3000', undefined, 'http', 'no Host to compare with'],
  ])('refuses Origin %s on Host %s over %s (%s)', (origin, host, protocol, _why) => expect(refused(req(origin, host, protocol))).toBe(true));

  it('reads the scheme from the socket when the request is a bare node request (no express protocol)', () => {
    expect(refused(req('https://127.0.0.1:3000', '127.0.0.1:3000', undefined, true))).toBe(false);
    expect(refused(req('https://127.0.0.1:3000', '127.0.0.1:3000'))).toBe(true);
    expect(refused(req('http://127.0.0.1:3000', '127.0.0.1:3000'))).toBe(false);
  });

  it('lets a request without Origin through, and refuses Sec-Fetch-Site: cross-site', () => {
    expect(refused(req(undefined, '127.0.0.1:3000', 'http'))).toBe(false);
    expect(refused({ protocol: 'http', headers: { host: '127.0.0.1:3000', 'sec-fetch-site': 'cross-site' } })).toBe(true);
  });
});
