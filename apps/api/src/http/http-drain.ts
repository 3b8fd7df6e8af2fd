import { Injectable } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { Server as NetServer, type Socket } from 'node:net';

/**
 * During a drain, a connection with no request in flight is closed once it has been idle this long
 * (counted from the drain's start at the earliest). Not at once: a keep-alive client may be sending
 * its next request on it right now, and a connection closed under it is a reset; one that arrives
 * within this time is answered (with `Connection: close`). A connection that has sent nothing yet
 * (its request still in the kernel's buffer) gets the same time to send it.
 */
export const DRAIN_IDLE_GRACE_MS = 1000;
const SWEEP_EVERY_MS = 25;
/** The longest the listening socket stays open at the start of a drain to take the connections already queued. */
const ACCEPT_QUEUED_MAX_MS = 1000;
/**
 * The shortest: for this long new connections are still taken and answered (`/health` with 503 draining, any other
 * request with `Connection: close`), so a health check that opens a connection per probe, or a keep-alive client whose
 * connection the drain has just closed, reads "draining" instead of a refused connection. Measured need: in CI the
 * queue was empty at once, the listening socket closed within a millisecond, and the probe that followed the last
 * keep-alive answer was refused.
 */
const ANNOUNCE_MS = 500;

/** What a drain did: requests answered while it ran, requests cut at the timeout, how long it took. */
export interface DrainResult { finished: number; cut: number; ms: number }

interface Connection { active: Set<ServerResponse>; idleSince: number }

/**
 * Graceful drain of the API's HTTP server on SIGTERM/SIGINT (issue 57, item 1). `drain(timeoutMs)`:
 * 1. stops accepting connections after ANNOUNCE_MS, once those already queued are taken (acceptQueued): the listening
 *    socket is closed, a new connection is refused, so a load balancer sends it elsewhere — without
 *    Node's `server.close()`, which since Node 19 also destroys every connection without a parsed
 *    request, among them those whose request has arrived but not been read yet;
 * 2. reports the process draining: `/health` answers 503 `{"status":"draining"}` (health.controller.ts);
 * 3. answers every request in flight and every request that still arrives on an open connection,
 *    each with `Connection: close`, and closes connections once they are idle (DRAIN_IDLE_GRACE_MS);
 * 4. at `timeoutMs`, destroys what is left (the requests still running are cut).
 * Nest's `app.close()` (queue, Postgres, Redis) comes after, so no request is answered without them.
 */
@Injectable()
export class HttpDrain {
  private server: Server | null = null;
  private readonly connections = new Map<Socket, Connection>();
  private startedAt = 0;
  private accepted = 0;
  private finished = 0;
  private running: Promise<DrainResult> | undefined;

  /** True from the start of a drain: /health answers 503 draining. */
  get draining(): boolean { return this.startedAt > 0; }

  /** Follows the server's connections and requests; call once, after every other request listener is installed. */
  attach(server: Server): void {
    this.server = server;
    server.on('connection', (socket: Socket) => {
      this.connections.set(socket, { active: new Set(), idleSince: Date.now() });
      this.accepted++;
      socket.once('close', () => this.connections.delete(socket));
    });
    // First among the request listeners, so the header is set before any handler writes.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      const c = this.connections.get(req.socket);
      if (!c) return;
      c.active.add(res);
      if (this.draining) res.setHeader('Connection', 'close');
      res.once('close', () => {
        c.active.delete(res);
        if (!c.active.size) c.idleSince = Date.now();
        if (this.draining) this.finished++;
      });
    });
  }

  /**
   * Waits until the kernel's accept queue is empty. Closing the listening socket resets every
   * connection still queued there — connections the client sees as open, with its request sent (the
   * resets of issue 57) — and on a busy API they are not all taken at the next turn of the event loop
   * (measured: 40 connections opened together, 25 still queued 150 ms later). So the listening socket
   * stays open until the kernel reports none queued (Linux: /proc/net/tcp; elsewhere: two turns of the
   * loop without a new connection), at most `maxMs`; what is taken meanwhile is answered like any
   * request during the drain.
   */
  private async acceptQueued(server: Server, minMs: number, maxMs: number): Promise<void> {
    const address = server.address();
    const port = address && typeof address === 'object' ? address.port : 0;
    const from = Date.now();
    const until = from + Math.max(minMs, maxMs);
    let quiet = 0;
    while (Date.now() < until) {
      const seen = this.accepted;
      await new Promise((r) => setImmediate(r));
      quiet = this.accepted === seen ? quiet + 1 : 0;
      if (Date.now() - from < minMs) { await new Promise((r) => setTimeout(r, 10)); continue; }
      const queued = acceptQueueLength(port);
      if (queued === 0 || (queued === null && quiet >= 2)) return;
    }
  }

  /** Runs the drain (once; a second call returns the first's result). */
  drain(timeoutMs: number): Promise<DrainResult> {
    this.running ??= this.run(timeoutMs);
    return this.running;
  }

  private async run(timeoutMs: number): Promise<DrainResult> {
    const server = this.server;
    if (!server) return { finished: 0, cut: 0, ms: 0 };
    this.startedAt = Date.now();
    for (const c of this.connections.values()) for (const res of c.active) if (!res.headersSent) res.setHeader('Connection', 'close');
    await this.acceptQueued(server, Math.min(ANNOUNCE_MS, timeoutMs), Math.min(ACCEPT_QUEUED_MAX_MS, timeoutMs));
    if (server.listening) NetServer.prototype.close.call(server);
    const deadline = this.startedAt + timeoutMs;
    const grace = Math.min(DRAIN_IDLE_GRACE_MS, timeoutMs);
    while (this.connections.size && Date.now() < deadline) {
      const now = Date.now();
      for (const [socket, c] of this.connections) {
        if (!c.active.size && now - Math.max(c.idleSince, this.startedAt) >= grace) socket.destroy();
      }
      if (this.connections.size) await new Promise((r) => setTimeout(r, Math.max(1, Math.min(SWEEP_EVERY_MS, deadline - Date.now()))));
    }
    // Counted before the cut: a destroyed request's 'close' comes later.
    const finished = this.finished;
    let cut = 0;
    for (const [socket, c] of this.connections) { cut += c.active.size; socket.destroy(); }
    return { finished, cut, ms: Date.now() - this.startedAt };
  }
}

/**
 * Connections waiting in the kernel's accept queue of the listening TCP socket on `port`, from
 * /proc/net/tcp and tcp6 (for a socket in LISTEN state, rx_queue is the accept queue's length);
 * null where that cannot be read (not Linux).
 */
export function acceptQueueLength(port: number): number | null {
  if (!port) return null;
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let found = false;
  let queued = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try { text = readFileSync(file, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[1] local address:port, f[3] state (0A = LISTEN), f[4] tx_queue:rx_queue
      if (f.length < 5 || f[3] !== '0A' || !f[1].endsWith(`:${hexPort}`)) continue;
      found = true;
      queued += parseInt(f[4].split(':')[1], 16);
    }
  }
  return found ? queued : null;
}
