import type { Hono } from 'hono';
import {
  type HttpEnv,
  httpApp,
  type Listening,
  listenHttp,
  type RawRoute,
  refuse,
  sendJson,
} from '../log/http-app.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../log/metrics.ts';
import type { CheckStatus } from '../model/check-result.ts';
import { withDeadline } from '../util/deadline.ts';

/** A handler that owns the raw request (Bolt's receiver reads and verifies the body itself). */
export type RouteHandler = RawRoute;

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
  /** Raw routes by exact path, any method (the Slack adapter mounts POST /slack/events). */
  routes?: Map<string, RouteHandler>;
  /** Every other path, when set (the web chat's app); without it they are 404. */
  fallback?: Hono<HttpEnv>;
  readinessTimeoutMs?: number;
  /**
   * The start-up checks (the doctor's names) with their statuses, shown beside the readiness
   * checks; they do not decide readiness.
   */
  diagnostics?: () => { name: string; status: CheckStatus | 'pending' }[];
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
  private readonly o: HttpServerOptions;
  private readonly app: Hono<HttpEnv>;
  private listening: Listening | undefined;

  constructor(o: HttpServerOptions) {
    this.o = o;
    const app = httpApp({
      log: o.log.child({ component: 'http' }),
      errorBody: (error) => ({ error }),
      failure: 'The request failed; the details are in the log.',
    });
    app.get('/healthz', (c) => sendJson(c, { status: 'ok' }));
    app.get('/readyz', async (c) => {
      const results = await runChecks(o.checks, o.readinessTimeoutMs ?? 3000);
      const failing = results.filter((r) => !r.ok && !r.optional);
      return sendJson(
        c,
        {
          status: failing.length ? 'not ready' : 'ready',
          checks: results,
          ...(o.diagnostics ? { doctor: o.diagnostics() } : {}),
        },
        failing.length ? 503 : 200,
      );
    });
    app.get('/metrics', async (c) =>
      c.body(await o.metrics.registry.metrics(), 200, {
        'content-type': o.metrics.registry.contentType,
      }),
    );
    app.all('/healthz', () => refuse(405, 'method not allowed'));
    app.all('/readyz', () => refuse(405, 'method not allowed'));
    app.all('/metrics', () => refuse(405, 'method not allowed'));
    if (o.fallback) app.route('/', o.fallback);
    this.app = app;
  }

  async listen(): Promise<number> {
    this.listening = await listenHttp(this.app, {
      port: this.o.port,
      host: this.o.host ?? '0.0.0.0',
      // Slack waits 3 s for an ack; keep-alive sockets from its delivery fleet are reused.
      keepAliveTimeoutMs: 65_000,
      // Before Hono: it never reads their body, so Slack's signature is checked on the bytes sent.
      ...(this.o.routes ? { raw: this.o.routes } : {}),
    });
    const { port } = this.listening;
    this.o.log.info({ port }, 'http server listening');
    return port;
  }

  async close(): Promise<void> {
    await this.listening?.close();
  }
}
