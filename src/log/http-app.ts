// The one HTTP idiom of the bot's servers (health with Slack's events and the web chat, and the
// embedded model's): a Hono app whose refusals and failures answer in that server's own error
// shape and are logged the same way, server-sent events written in order, and one way to listen
// and close. A refusal is Hono's HTTPException (`refuse`); anything else thrown is a failure,
// logged with its stack, and the client is told only that it failed.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { SSEMessage, SSEStreamingApi } from 'hono/streaming';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from './logger.ts';

/** Every app runs on Node: handlers may reach the raw request (its socket, Bolt's receiver). */
export type HttpEnv = { Bindings: HttpBindings };

/** Stops the request with `status` and `message`, in the app's error shape. */
export function refuse(status: ContentfulStatusCode, message: string): never {
  throw new HTTPException(status, { message });
}

export interface HttpAppOptions {
  /** A child logger naming the server (its component or platform). */
  log: Logger;
  /** An error's JSON in this server's dialect (`{error}` for the bot's, OpenAI's for the model's). */
  errorBody: (message: string, status: ContentfulStatusCode) => unknown;
  /** What a failure tells the client; the details go to the log. */
  failure: string;
  /** Errors of the server's own kind that are refusals: their status and JSON. */
  refusalOf?: (err: Error) => { status: ContentfulStatusCode; body: unknown } | undefined;
  /** false: `/path/` is `/path` (the embedded model, as vLLM). */
  strict?: boolean;
}

export function httpApp(o: HttpAppOptions): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>({ strict: o.strict ?? true });
  app.onError((err, c) => {
    const where = { method: c.req.method, path: c.req.path };
    const refusal =
      err instanceof HTTPException
        ? { status: err.status as ContentfulStatusCode, body: o.errorBody(err.message, err.status) }
        : o.refusalOf?.(err);
    if (refusal) {
      o.log.debug(
        { ...where, status: refusal.status, message: err.message },
        'http request refused',
      );
      return c.json(refusal.body, refusal.status, { 'cache-control': 'no-store' });
    }
    o.log.error({ ...where, err }, 'http request failed');
    return c.json(o.errorBody(o.failure, 500), 500, { 'cache-control': 'no-store' });
  });
  app.notFound((c) =>
    c.json(o.errorBody(`No route ${c.req.method} ${c.req.path}.`, 404), 404, {
      'cache-control': 'no-store',
    }),
  );
  return app;
}

/** JSON that no cache keeps. */
export function sendJson(c: Context, body: unknown, status: ContentfulStatusCode = 200): Response {
  return c.json(body, status, { 'cache-control': 'no-store' });
}

/** Events written in the order they are sent; `flushed` resolves once all sent are written. */
export interface OrderedEvents {
  send(m: SSEMessage): void;
  flushed(): Promise<void>;
}

/**
 * Writes events to a stream in the order they are sent, from synchronous callbacks (a transcript's
 * listener, a model's tokens); a write after the client left is dropped.
 */
export function orderedEvents(stream: SSEStreamingApi): OrderedEvents {
  let last = Promise.resolve();
  return {
    send: (m) => {
      last = last.then(() => stream.writeSSE(m)).catch(() => undefined);
    },
    flushed: () => last,
  };
}

export interface Listening {
  server: Server;
  port: number;
  /** Stops accepting; `all` also cuts connections still open (streams), not only idle ones. */
  close(all?: boolean): Promise<void>;
}

/** A handler that owns the raw request (Bolt's receiver reads and verifies the body itself). */
export type RawRoute = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Serves `app` on `host:port` (0: any free port). `raw` routes (by exact path, any method) are
 * dispatched before Hono: it never reads their body, and a burst of Slack events is acknowledged
 * without a fetch Request built for each.
 */
export async function listenHttp(
  app: Hono<HttpEnv>,
  o: { port: number; host: string; keepAliveTimeoutMs?: number; raw?: Map<string, RawRoute> },
): Promise<Listening> {
  const raw = o.raw ?? new Map<string, RawRoute>();
  const hono = getRequestListener(app.fetch);
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const route = raw.get(q < 0 ? url : url.slice(0, q));
    if (route) route(req, res);
    else void hono(req, res);
  });
  if (o.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = o.keepAliveTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: (all = false) =>
      new Promise<void>((resolve) => {
        // A response still being written (a stream being ended) leaves its keep-alive connection
        // idle only once it is done, and Node would then hold it until its timeout: sweep again.
        const sweep = setInterval(() => server.closeIdleConnections(), 25);
        server.close(() => {
          clearInterval(sweep);
          resolve();
        });
        if (all) server.closeAllConnections();
        else server.closeIdleConnections();
      }),
  };
}
