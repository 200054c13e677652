import { ThreadmindError } from '../model/errors.ts';
import { asCodedError } from './classify-error.ts';

export interface ModelInfo {
  id: string;
  /** vLLM reports the served context window; other servers may not. */
  maxModelLen: number | undefined;
}

interface ModelsResponse {
  data?: { id?: unknown; max_model_len?: unknown }[];
}

export interface EndpointOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/** A non-2xx answer, with its status for asCodedError. */
class HttpStatusError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'HttpStatusError';
    this.status = status;
  }
}

function headers(apiKey: string | undefined): Record<string, string> {
  return apiKey ? { authorization: `Bearer ${apiKey}` } : {};
}

/** GET {baseUrl}/models; the configured model (or the first one served) with its context window. */
export async function fetchModelInfo(opts: EndpointOptions, wanted: string): Promise<ModelInfo> {
  const models = await fetchModels(opts);
  const pick = wanted ? models.find((m) => m.id === wanted) : models[0];
  if (!pick) {
    if (wanted) return { id: wanted, maxModelLen: undefined };
    throw new ThreadmindError(
      'model_unavailable',
      `${opts.baseUrl} lists no models`,
      'The language model server has no model loaded.',
    );
  }
  return pick;
}

/** Every model the server lists, with its context window. */
export async function fetchModels(opts: EndpointOptions): Promise<ModelInfo[]> {
  const doFetch = opts.fetch ?? fetch;
  const url = `${opts.baseUrl.replace(/\/+$/, '')}/models`;
  let body: ModelsResponse;
  try {
    const res = await doFetch(url, {
      headers: headers(opts.apiKey),
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    if (!res.ok) throw new HttpStatusError(`GET ${url} answered HTTP ${res.status}`, res.status);
    body = (await res.json()) as ModelsResponse;
  } catch (err) {
    // Whatever went wrong, the thread is told the model cannot be reached; whether trying again
    // may help (a timeout, a 503 while the GPU node loads, a proxy's page that is not JSON) or not
    // (a 401) comes from the failure.
    const coded = asCodedError(err);
    throw new ThreadmindError(
      'model_unavailable',
      `cannot list models at ${url}: ${err instanceof Error ? err.message : String(err)}`,
      "I can't reach the language model right now. Please try again in a few minutes.",
      { cause: err, retryable: coded.code === 'internal' || coded.retryable },
    );
  }
  return (body.data ?? []).flatMap((m) =>
    typeof m.id === 'string'
      ? [
          {
            id: m.id,
            maxModelLen: typeof m.max_model_len === 'number' ? m.max_model_len : undefined,
          },
        ]
      : [],
  );
}
