// The doctor's requests to a model server: GET /models and the model the bot will use, with the
// server's own error message when it refuses.
import type { Config } from '../config/schema.ts';
import {
  type CheckContext,
  type CheckResult,
  reasonOf,
  stepSignal,
} from '../model/check-result.ts';

export type Which = 'text' | 'vision';

const ENV: Record<Which, { url: string; model: string }> = {
  text: { url: 'LLM_TEXT_BASE_URL', model: 'LLM_TEXT_MODEL' },
  vision: { url: 'LLM_VISION_BASE_URL', model: 'LLM_VISION_MODEL' },
};

export interface Served {
  id: string;
  maxModelLen: number | undefined;
}

export class HttpError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(status: number, what: string, body: string) {
    super(`${what} answered HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

function headers(config: Config): Record<string, string> {
  const key = config.secrets.llmApiKey;
  return { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) };
}

export async function send(
  config: Config,
  url: string,
  ctx: CheckContext,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: headers(config),
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: stepSignal(ctx),
  });
  const text = await res.text();
  if (!res.ok)
    throw new HttpError(res.status, `${body === undefined ? 'GET' : 'POST'} ${url}`, text);
  return JSON.parse(text) as unknown;
}

/** The server's error message from vLLM's `{error: {message}}` (or FastAPI's `{detail}`). */
export function serverMessage(err: HttpError): string {
  try {
    const parsed = JSON.parse(err.body) as { error?: { message?: unknown }; detail?: unknown };
    const m = parsed.error?.message ?? parsed.detail;
    if (typeof m === 'string') return m;
  } catch {
    // not JSON: fall through
  }
  return err.body.slice(0, 200);
}

export function baseUrl(config: Config, which: Which): string {
  return config.llm[which].baseUrl.replace(/\/+$/, '');
}

/** GET /models and the model the bot will use (the configured one, else the first served). */
export async function served(
  config: Config,
  which: Which,
  ctx: CheckContext,
  base = baseUrl(config, which),
): Promise<{
  result: CheckResult;
  model?: Served;
}> {
  const name = `llm_${which}.models`;
  const url = `${base.replace(/\/+$/, '')}/models`;
  let body: { data?: { id?: unknown; max_model_len?: unknown }[] };
  try {
    body = (await send(config, url, ctx)) as typeof body;
  } catch (err) {
    const auth = err instanceof HttpError && (err.status === 401 || err.status === 403);
    return {
      result: {
        name,
        status: 'fail',
        summary: `cannot list models at ${url}: ${reasonOf(err)}`,
        fix: auth
          ? 'The server wants an API key: export LLM_API_KEY with the value vLLM was started with (--api-key).'
          : `Check ${ENV[which].url} (the server's /v1 address) and that the model server is running and reachable from here.`,
      },
    };
  }
  const models = (body.data ?? [])
    .filter((m) => typeof m.id === 'string')
    .map((m) => ({
      id: String(m.id),
      maxModelLen: typeof m.max_model_len === 'number' ? m.max_model_len : undefined,
    }));
  const wanted = config.llm[which].model;
  const pick = wanted ? models.find((m) => m.id === wanted) : models[0];
  if (!pick) {
    return {
      result: {
        name,
        status: 'fail',
        summary: wanted
          ? `${ENV[which].model}=${wanted} is not served; ${url} lists ${models.map((m) => m.id).join(', ') || 'no models'}`
          : `${url} lists no models`,
        fix: wanted
          ? `Set ${ENV[which].model} to a served model id (or leave it empty for the first one).`
          : 'Load a model into the server (vllm serve <model>).',
      },
    };
  }
  return {
    result: {
      name,
      status: 'ok',
      summary: `serves ${pick.id}${pick.maxModelLen ? ` (max_model_len ${pick.maxModelLen})` : ''}`,
    },
    model: pick,
  };
}
