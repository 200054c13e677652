// The REST surface's plumbing: routing `/api[/vN]/…`, bot-token auth, bodies, rate-limit
// headers, injected faults and the call log. Route handlers live in routes-*.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Answer, apiError } from './api-errors.ts';
import { FaultQueue, RateLimiter } from './rate-limits.ts';
import { readBody, type UploadedFile } from './request-body.ts';
import type { ApiCall, Fault } from './types.ts';

export interface Req {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  files: UploadedFile[];
}

export interface Route {
  method: string;
  /** Template such as `/channels/:channel/messages/:message`. */
  path: string;
  /** false for interaction and webhook-token routes, which take no Authorization. */
  auth?: boolean;
  handle(r: Req): Answer | Promise<Answer>;
}

interface Compiled extends Route {
  regex: RegExp;
  names: string[];
}

export interface HttpApiDeps {
  botToken: string;
  calls: ApiCall[];
  rateLimit: { limit: number; windowMs: number };
}

export class HttpApi {
  readonly #routes: Compiled[];
  readonly #deps: HttpApiDeps;
  readonly #limiter: RateLimiter;
  readonly #faults = new FaultQueue();

  constructor(routes: Route[], deps: HttpApiDeps) {
    this.#deps = deps;
    this.#limiter = new RateLimiter(deps.rateLimit.limit, deps.rateLimit.windowMs);
    this.#routes = routes.map((r) => {
      const names: string[] = [];
      const pattern = r.path.replace(/:(\w+)/g, (_, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      return { ...r, regex: new RegExp(`^${pattern}$`), names };
    });
  }

  /** The next `times` calls whose `METHOD /path` matches `route` get `fault` instead. */
  failNext(route: RegExp, fault: Fault): void {
    this.#faults.add(route, fault);
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname.replace(/^\/api(\/v\d+)?/, '') || '/';
    const method = (req.method ?? 'GET').toUpperCase();
    const call: ApiCall = {
      method,
      route: path,
      query: url.search,
      body: undefined,
      at: Date.now(),
      status: 0,
    };
    let answer: Answer;
    try {
      answer = await this.#answer(req, method, path, url, call);
    } catch (err) {
      answer = apiError(500, 0, `500: Internal Server Error (${String(err)})`);
    }
    call.status = answer.status;
    const code = (answer.body as { code?: unknown } | undefined)?.code;
    if (answer.status >= 400 && typeof code === 'number') call.code = code;
    this.#deps.calls.push(call);
    const headers: Record<string, string> = { ...answer.headers };
    if (answer.body === undefined) {
      res.writeHead(answer.status, headers).end();
      return;
    }
    headers['content-type'] = 'application/json';
    res.writeHead(answer.status, headers).end(JSON.stringify(answer.body));
  }

  async #answer(
    req: IncomingMessage,
    method: string,
    path: string,
    url: URL,
    call: ApiCall,
  ): Promise<Answer> {
    const parsed = await readBody(req);
    call.body = parsed.body;
    if (parsed.files.length > 0) call.files = parsed.files.map(({ bytes: _, ...info }) => info);
    const matches = this.#routes.filter((r) => r.regex.test(path));
    const route = matches.find((r) => r.method === method);
    if (route === undefined) {
      return matches.length > 0
        ? apiError(405, 0, '405: Method Not Allowed')
        : apiError(404, 0, '404: Not Found');
    }
    const m = route.regex.exec(path) ?? [];
    const params = Object.fromEntries(
      route.names.map((n, i) => [n, decodeURIComponent(m[i + 1] ?? '')]),
    );
    if (parsed.error !== undefined) return parsed.error;
    if (route.auth !== false && req.headers.authorization !== `Bot ${this.#deps.botToken}`) {
      return apiError(401, 0, '401: Unauthorized');
    }
    const fault = this.#faults.take(`${method} ${path}`);
    if (fault !== undefined) return fault;
    const limited = this.#limiter.take(`${method} ${route.path}`, majorParameter(route, params));
    if (limited.status === 429) return limited;
    const answer = await route.handle({
      method,
      path,
      params,
      query: url.searchParams,
      body: parsed.body,
      files: parsed.files,
    });
    return { ...answer, headers: { ...limited.headers, ...answer.headers } };
  }
}

/** The id Discord buckets by: channel, guild, webhook (id and token), or the interaction itself. */
function majorParameter(route: Route, params: Record<string, string>): string {
  // Each interaction's callback is limited on its own (and not by the global limit).
  if (route.path.startsWith('/interactions/')) return Object.values(params).join('/');
  if (route.path.startsWith('/channels/')) return params.channel ?? '';
  if (route.path.startsWith('/guilds/')) return params.guild ?? '';
  if (route.path.startsWith('/webhooks/')) return `${params.app ?? ''}/${params.token ?? ''}`;
  return 'global';
}
