// The Web API's HTTP surface: body decoding, tokens, injected faults, call log, responses.
// Slack answers API errors with HTTP 200 and {ok:false}; only rate limits and server trouble
// change the status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultQueue } from './faults.ts';
import type { ApiArgs, ApiContext, ApiResult, TokenKind } from './methods/context.ts';
import { methods } from './methods/index.ts';
import type { ApiCall } from './types.ts';

const MAX_BODY_BYTES = 5 * 1024 * 1024;
// What a realistic manifest for the app grants (reported in X-OAuth-Scopes).
const BOT_SCOPES = [
  'app_mentions:read',
  'assistant:write',
  'channels:history',
  'channels:read',
  'chat:write',
  'commands',
  'files:read',
  'groups:history',
  'groups:read',
  'im:history',
  'im:write',
  'mpim:history',
  'mpim:read',
  'reactions:write',
  'usergroups:read',
  'users:read',
].join(',');

// Form encoding carries structured arguments as JSON strings (WebClient stringifies them).
const JSON_FIELDS = [
  'blocks',
  'attachments',
  'chunks',
  'metadata',
  'loading_messages',
  'view',
  'prompts',
];

interface Answer {
  status: number;
  body: ApiResult;
  headers?: Record<string, string>;
}

export interface WebApi {
  handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void>;
}

export function createWebApi(
  ctx: ApiContext,
  calls: ApiCall[],
  faults: FaultQueue,
  botScopes: string = BOT_SCOPES,
): WebApi {
  async function handle(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> {
    let args: ApiArgs = {};
    let answer: Answer;
    let parsedTeam: string | undefined;
    try {
      const parsed = await readArgs(req);
      args = parsed.args;
      answer = parsed.error ? ok200(fail(parsed.error)) : dispatch(method, parsed, req);
      parsedTeam = parsed.teamId;
    } catch (err) {
      answer = { status: 500, body: fail('fatal_error', { detail: String(err) }) };
    }
    const call: ApiCall = {
      method,
      args,
      at: Date.now(),
      status: answer.status,
      ok: answer.body.ok,
    };
    if (answer.body.error !== undefined) call.error = answer.body.error;
    if (parsedTeam !== undefined) call.teamId = parsedTeam;
    calls.push(call);
    // A slow Slack: the answer (errors and 429s included) waits, the call is logged on arrival.
    if (ctx.apiLatencyMs > 0) await new Promise((resolve) => setTimeout(resolve, ctx.apiLatencyMs));
    res.writeHead(answer.status, {
      'content-type': 'application/json; charset=utf-8',
      ...answer.headers,
    });
    res.end(JSON.stringify(answer.body));
  }

  function dispatch(method: string, parsed: ParsedArgs, req: IncomingMessage): Answer {
    const fault = faults.take(method);
    if (fault !== undefined) {
      const status = fault.status ?? (fault.error === 'ratelimited' ? 429 : 200);
      const headers: Record<string, string> = {};
      // Slack always says when to come back after a 429.
      if (fault.retryAfterSec !== undefined || status === 429) {
        headers['retry-after'] = String(fault.retryAfterSec ?? 1);
      }
      return { status, body: fail(fault.error), headers };
    }
    const spec = methods.get(method);
    if (spec === undefined || (spec.available !== undefined && !spec.available(ctx))) {
      return ok200(fail('unknown_method', { req_method: method }));
    }
    if (spec.token === 'client') {
      return ok200(ctx.oauth.exchange(parsed.args, basicAuth(req)));
    }
    const token = bearer(req) ?? parsed.bodyToken;
    if (token === undefined || token === '') return ok200(fail('not_authed'));
    const installed = ctx.oauth.byToken(token);
    if (installed?.revoked === true) return ok200(fail('token_revoked'));
    if (installed?.expiresAt !== undefined && installed.expiresAt <= Date.now())
      return ok200(fail('token_expired'));
    const kind: TokenKind | undefined = installed !== undefined ? 'bot' : tokenKind(token);
    if (kind === undefined) return ok200(fail('invalid_auth'));
    if (kind !== spec.token) return ok200(fail('not_allowed_token_type'));
    const acting =
      installed === undefined ? ctx : { ...ctx, ids: ctx.oauth.identity(ctx.ids, installed) };
    parsed.teamId = acting.ids.teamId;
    // A workspace's token sees only that workspace's channels (an org-wide one, the org's).
    const channel = parsed.args.channel ?? parsed.args.channel_id;
    const owner = typeof channel === 'string' ? ctx.channelOwners.get(channel) : undefined;
    if (owner !== undefined && kind === 'bot') {
      const ownerInstalled = ctx.oauth.knows(owner.teamId, owner.enterpriseId);
      if (installed !== undefined || ownerInstalled) {
        const allowed =
          installed !== undefined &&
          (installed.orgWide
            ? installed.enterpriseId === owner.enterpriseId
            : installed.teamId === owner.teamId);
        if (!allowed) return ok200(fail('channel_not_found'));
      }
    }
    const headers: Record<string, string> = kind === 'bot' ? { 'x-oauth-scopes': botScopes } : {};
    return { status: 200, body: spec.handle(parsed.args, acting), headers };
  }

  function tokenKind(token: string): TokenKind | undefined {
    if (token === ctx.ids.botToken) return 'bot';
    if (token === ctx.ids.appToken) return 'app';
    return undefined;
  }

  return { handle };
}

function ok200(body: ApiResult): Answer {
  return { status: 200, body };
}

function fail(error: string, extra: Record<string, unknown> = {}): ApiResult {
  return { ok: false, error, ...extra };
}

/** OAuth client credentials sent as HTTP Basic auth (the other way oauth.v2.access takes them). */
function basicAuth(req: IncomingMessage): { id: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

interface ParsedArgs {
  args: ApiArgs;
  /** A `token` argument; JSON bodies cannot carry one (Slack wants the header there). */
  bodyToken?: string;
  error?: string;
  /** Set by dispatch: the workspace the token acts for. */
  teamId?: string;
}

async function readArgs(req: IncomingMessage): Promise<ParsedArgs> {
  const url = new URL(req.url ?? '/', 'http://emulator');
  const args: ApiArgs = Object.fromEntries(url.searchParams);
  const raw = await readBody(req);
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  let fromJson = false;
  if (raw.length > 0) {
    if (type === 'application/json') {
      let body: unknown;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return { args, error: 'invalid_json' };
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return { args, error: 'invalid_json' };
      }
      Object.assign(args, body);
      fromJson = true;
    } else if (type === 'multipart/form-data') {
      const form = await new Response(new Uint8Array(raw), {
        headers: { 'content-type': String(req.headers['content-type']) },
      }).formData();
      for (const [key, value] of form) args[key] = typeof value === 'string' ? value : value.name;
    } else {
      Object.assign(args, Object.fromEntries(new URLSearchParams(raw.toString('utf8'))));
    }
  }
  const token = args.token;
  delete args.token;
  for (const field of JSON_FIELDS) {
    const value = args[field];
    if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) continue;
    try {
      args[field] = JSON.parse(value);
    } catch {
      if (field === 'view') continue; // views.* answer invalid_arguments for it themselves
      return { args, error: field === 'blocks' ? 'invalid_blocks_format' : 'invalid_arguments' };
    }
  }
  const parsed: ParsedArgs = { args };
  if (!fromJson && typeof token === 'string') parsed.bodyToken = token;
  return parsed;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}
