// Step (a): vLLM's POST /tokenize in chat form. It renders the model's own chat template (tools
// included) and returns the exact prompt length. vLLM serves it at the server root, not under /v1.

import type { ChatPayload } from './types.ts';

/** http://gpu:8000/v1 → http://gpu:8000 (the OpenAI routes' base URL → the server root). */
export function serverRootOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

export type TokenizeResult =
  | { kind: 'count'; tokens: number }
  /** The server has no /tokenize: FastAPI's 404 for an unknown route, 405 or 501. */
  | { kind: 'missing' }
  /** Anything else (network, timeout, 4xx/5xx about this request): try again next turn. */
  | { kind: 'failed'; reason: string };

export interface TokenizeRequest {
  serverRoot: string;
  model: string;
  apiKey?: string | undefined;
  timeoutMs: number;
  fetch: typeof fetch;
}

/** A 404 about the request (vLLM's "The model `x` does not exist.") says the route exists. */
function isRouteMissing(status: number, body: unknown): boolean {
  if (status === 405 || status === 501) return true;
  if (status !== 404) return false;
  const error = (body as { error?: { message?: unknown; param?: unknown } | null } | null)?.error;
  if (!error) return true;
  return error.param !== 'model' && !/model/i.test(String(error.message ?? ''));
}

export async function postTokenize(
  req: TokenizeRequest,
  payload: ChatPayload,
): Promise<TokenizeResult> {
  const body: Record<string, unknown> = {
    model: req.model,
    messages: payload.messages,
    add_generation_prompt: true,
  };
  if (payload.tools && payload.tools.length > 0) body.tools = payload.tools;
  let res: Response;
  let answer: unknown;
  try {
    res = await req.fetch(`${req.serverRoot}/tokenize`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(req.apiKey ? { authorization: `Bearer ${req.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(req.timeoutMs),
    });
    const text = await res.text();
    try {
      answer = JSON.parse(text);
    } catch {
      answer = null;
    }
  } catch (err) {
    return { kind: 'failed', reason: err instanceof Error ? err.message : String(err) };
  }
  if (isRouteMissing(res.status, answer)) return { kind: 'missing' };
  if (!res.ok) return { kind: 'failed', reason: `HTTP ${res.status}` };
  const count = (answer as { count?: unknown } | null)?.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    return { kind: 'failed', reason: 'answer has no count' };
  }
  return { kind: 'count', tokens: count };
}
