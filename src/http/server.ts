import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { CheckStatus } from '../model/check-result.ts';
import { withDeadline } from '../util/deadline.ts';

export type RouteHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
  /** Reported, but does not make the bot unready (a feature degrades instead). */
  optional?: boolean;
}

export interface HttpServerOptions {
  port: number;
  host?: string;
  metrics: Metrics;
  checks: ReadinessCheck[];
  log: Logger;
  /** Extra routes by exact path (the Slack adapter mounts POST /slack/events). */
  routes?: Map<string, RouteHandler>;
  /** Every other path, when set (the web chat); without it they are 404. */
  fallback?: RouteHandler;
  readinessTimeoutMs?: number;
  /**
   * The start-up checks (the doctor's names) with their statuses, shown beside the readiness
   * checks; they do not decide readiness.
   */
  diagnostics?: () => { name: string; status: CheckStatus | 'pending' }[];
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(JSON.stringify(body));
}

async function runChecks(checks: ReadinessCheck[], timeoutMs: number) {
  const results = await Promise.all(
    checks.map(async (c) => {
      try {
        await withDeadline(
          c.check(),
          timeoutMs,
          () => new Error(`no answer within ${timeoutMs} ms`),
        );
        return { name: c.name, ok: true as const, optional: c.optional === true };
      } catch (err) {
        return {
          name: c.name,
          ok: false as const,
          // Carried on failure too: an optional check that fails must not make the pod unready.
          optional: c.optional === true,
          error: err instanceof Error ? err.message : String(err),
        };
      }
    }),
  );
  return results;
}

/** /healthz, /readyz, /metrics and whatever routes adapters mount, on one port. */
export class HttpServer {
  private readonly server: http.Server;
  private readonly o: HttpServerOptions;
  readonly routes: Map<string, RouteHandler>;

  constructor(o: HttpServerOptions) {
    this.o = o;
    this.routes = o.routes ?? new Map();
    this.server = http.createServer((req, res) => this.handle(req, res));
    // Slack waits 3 s for an ack; keep-alive sockets from its delivery fleet are reused.
    this.server.keepAliveTimeout = 65_000;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = this.routes.get(path);
    if (route) {
      route(req, res);
      return;
    }
    const ops = path === '/healthz' || path === '/readyz' || path === '/metrics';
    if (!ops && this.o.fallback) {
      this.o.fallback(req, res);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      json(res, 405, { error: 'method not allowed' });
      return;
    }
    if (path === '/healthz') {
      json(res, 200, { status: 'ok' });
    } else if (path === '/readyz') {
      runChecks(this.o.checks, this.o.readinessTimeoutMs ?? 3000).then(
        (results) => {
          const failing = results.filter((r) => !r.ok && !r.optional);
          json(res, failing.length ? 503 : 200, {
            status: failing.length ? 'not ready' : 'ready',
            checks: results,
            ...(this.o.diagnostics ? { doctor: this.o.diagnostics() } : {}),
          });
        },
        (err: unknown) => json(res, 500, { error: String(err) }),
      );
    } else if (path === '/metrics') {
      this.o.metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': this.o.metrics.registry.contentType });
          res.end(text);
        },
        (err: unknown) => {
          this.o.log.error({ err }, 'metrics failed');
          json(res, 500, { error: 'metrics failed' });
        },
      );
    } else {
      json(res, 404, { error: 'not found' });
    }
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.o.port, this.o.host ?? '0.0.0.0', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const port = (this.server.address() as AddressInfo).port;
    this.o.log.info({ port }, 'http server listening');
    return port;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
  }
}
