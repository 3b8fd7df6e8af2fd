import { WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APP_CONFIG, METRICS, metricsAccess, observeWorkerTimings, type AppConfig, type ForensicsMetrics } from '@forensics/infra';

/**
 * The worker's metrics (issue 14). The worker makes the judge calls and runs the jobs, so:
 * 1. every BullMQ worker of this process (one per processor, discovered in the container) has its
 *    finished attempts timed into `forensics_queue_wait_seconds` / `forensics_queue_processing_seconds`;
 * 2. with WORKER_METRICS_PORT set, this process serves its registry at GET /metrics on HOST:port,
 *    with the API's token rule (metricsAccess). Prometheus scrapes each worker like the API; the
 *    series carry no process label of their own — Prometheus adds `instance`, and sums work.
 * When API and worker share one process (`npm start`, tests) they share one registry, served by the
 * API's /metrics; a metrics port is then unnecessary.
 *
 * Chosen over pushing through Redis (or a Pushgateway): a plain scrape target per worker keeps
 * counters per process (no merging, no double counting) and needs no extra component. node:http is
 * enough for one read-only route; prom-client renders the text.
 */
@Injectable()
export class WorkerMetrics implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly log = new Logger('worker-metrics');
  private readonly detach: Array<() => void> = [];
  private server: Server | null = null;

  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(METRICS) private readonly metrics: ForensicsMetrics,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const wrapper of this.discovery.getProviders()) {
      const host = wrapper.isDependencyTreeStatic() ? wrapper.instance : undefined;
      if (!(host instanceof WorkerHost)) continue;
      try {
        this.detach.push(observeWorkerTimings(this.metrics, host.worker));
      } catch (e) {
        this.log.warn(`a processor has no worker to time: ${(e as Error).message}`);
      }
    }
    if (this.config.workerMetricsPort !== undefined) await this.listen(this.config.workerMetricsPort);
  }

  /** Address of the metrics server (tests), or null. */
  address(): AddressInfo | null {
    return (this.server?.address() as AddressInfo | null) ?? null;
  }

  private async listen(port: number): Promise<void> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' || path !== '/metrics') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: 404, error: 'Not Found', message: 'this port serves GET /metrics only' }));
        return;
      }
      const access = metricsAccess(this.config, req.headers.authorization);
      if (!access.ok) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (access.status === 401) headers['www-authenticate'] = 'Bearer realm="metrics"';
        res.writeHead(access.status, headers).end(JSON.stringify({ statusCode: access.status, error: access.status === 401 ? 'Unauthorized' : 'Service Unavailable', message: access.message }));
        return;
      }
      this.metrics.render().then(({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType }).end(body);
      }, (e: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ statusCode: 500, error: 'Internal Server Error', message: `metrics could not be collected: ${(e as Error).message}` }));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.config.host, () => { server.off('error', reject); resolve(); });
    });
    this.server = server;
    this.log.log(`serving GET /metrics on ${this.config.host}:${(server.address() as AddressInfo).port}`);
  }

  async onApplicationShutdown(): Promise<void> {
    for (const d of this.detach.splice(0)) d();
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
